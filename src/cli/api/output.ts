/**
 * What the API commands print: JSON for scripts (`--json`), else text, coloured only where it helps and
 * only on a terminal (`styleText` checks the stream, `NO_COLOR` and `FORCE_COLOR`); and a spinner on
 * stderr while a turn runs, drawn only when stderr is a terminal.
 */
import { styleText } from "node:util";

type Style = Parameters<typeof styleText>[0];

/** `text` styled for stdout, or as it is when stdout is not a terminal or colour is turned off. */
export const paint = (style: Style, text: string) => styleText(style, text, { stream: process.stdout });

export const printJson = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;

export class Spinner {
  private timer: ReturnType<typeof setInterval> | null = null;
  private frame = 0;
  private readonly shown = process.stderr.isTTY === true;

  /** Draws `label` with a turning frame until `stop`; nothing when stderr is not a terminal. */
  start(label: string): void {
    if (!this.shown || this.timer) return;
    const draw = () => process.stderr.write(`\r${styleText("cyan", FRAMES[this.frame++ % FRAMES.length]!, { stream: process.stderr })} ${label}`);
    draw();
    this.timer = setInterval(draw, FRAME_MS);
  }

  /** Clears the line it drew, so what is printed next starts clean. */
  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    process.stderr.write("\r\x1b[K");
  }
}
