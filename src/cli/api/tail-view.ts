/**
 * How `sessions tail` shows a session's events as they stream: durable events one line each (as the
 * operator's tail prints them), a message's deltas written as they arrive on one line, which the
 * durable message then ends (printed whole instead when deltas were missed, after a reconnect), and a
 * spinner while a turn runs with nothing streaming.
 */
import type { Event } from "@agent-sessions/client";
import { contentText, eventLine } from "../event-line.js";
import { paint, Spinner } from "./output.js";

type Streamed = "agent.message" | "agent.thinking";
const STREAMED = new Set<string>(["agent.message", "agent.thinking"]);

/** The colour of a line, by what the event is about. */
function styleOf(e: Event, payload: Record<string, unknown>): Parameters<typeof paint>[0] {
  const stop = (payload.stop_reason as { type?: string } | undefined)?.type;
  if (stop === "error" || stop === "budget_exceeded") return "red";
  if (e.type === "agent.approval_request" || e.type === "agent.custom_tool_use" || stop === "requires_action") return "yellow";
  if (e.type.startsWith("user.")) return "blue";
  if (e.type.startsWith("agent.")) return "green";
  return "dim";
}

export class TailView {
  private open: { type: Streamed; text: string } | null = null;
  private running = false;
  private readonly spinner = new Spinner();

  show(e: Event): void {
    const payload: Record<string, unknown> = { ...e.payload };
    if (e.sequence === null) this.live(e, payload);
    else this.durable(e, payload);
    if (e.type === "session.status_running") this.running = true;
    if (e.type === "session.status_idle") this.running = false;
    if (this.running && !this.open) this.spinner.start("the turn is running");
  }

  /** Ends what is drawn (an open line, the spinner): the tail is over. */
  end(): void {
    this.spinner.stop();
    this.closeOpen();
  }

  private live(e: Event, payload: Record<string, unknown>): void {
    if (STREAMED.has(e.type) && payload.delta === true) {
      const type = e.type as Streamed;
      const text = contentText(payload.content) ?? "";
      this.spinner.stop();
      if (this.open?.type !== type) {
        this.closeOpen();
        process.stdout.write(paint("bold", type === "agent.message" ? "agent ▸ " : "thinking ▸ "));
        this.open = { type, text: "" };
      }
      this.open.text += text;
      process.stdout.write(type === "agent.thinking" ? paint("dim", text) : text);
    } else if (e.type === "session.tool_updated") {
      this.line(e, payload);
    }
    // Other live frames (a tool call still being written) are shown by the durable event that follows.
  }

  private durable(e: Event, payload: Record<string, unknown>): void {
    if (this.open && this.open.type === e.type && payload.delta !== true && this.open.text === (contentText(payload.content) ?? "")) {
      // Everything the message says has been written as it streamed: end its line.
      process.stdout.write("\n");
      this.open = null;
      return;
    }
    this.line(e, payload);
  }

  private line(e: Event, payload: Record<string, unknown>): void {
    this.spinner.stop();
    this.closeOpen();
    process.stdout.write(`${paint(styleOf(e, payload), eventLine({ ...e, payload }))}\n`);
  }

  private closeOpen(): void {
    if (!this.open) return;
    process.stdout.write("\n");
    this.open = null;
  }
}
