/**
 * `sessions tail`: a session's events over the API's SSE stream, from its first event (or `--from`),
 * then live ones as they come, deltas included, until Ctrl-C. The stream resumes by itself after a
 * disconnect (the client's `events`); each reconnect is said on stderr.
 */
import { Option, type Command } from "commander";
import { checked } from "../program.js";
import { sessionIdArgument } from "../sessions.js";
import { apiTarget } from "./connection.js";
import { printJson } from "./output.js";
import { TailView } from "./tail-view.js";

const fromSequence = checked((raw) => (/^\d{1,15}$/.test(raw) && Number(raw) >= 1 ? Number(raw) : { problem: "--from is a sequence: 1, 2, …" }));

async function tail(command: Command, sessionId: string, opts: { from: number; json: boolean; deltas: boolean }): Promise<void> {
  const { client } = await apiTarget(command);
  const stop = new AbortController();
  const interrupted = () => stop.abort();
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  const view = opts.json ? null : new TailView();
  const stream = client.events(sessionId, {
    from: { sequence: opts.from - 1 },
    liveFrames: opts.deltas,
    signal: stop.signal,
    onState: (s) => {
      if (s.state === "reconnecting") {
        view?.end();
        const cause = s.cause instanceof Error ? s.cause.message : String(s.cause);
        process.stderr.write(`reconnecting in ${(s.delayMs / 1000).toFixed(1)} s (attempt ${s.attempt}: ${cause})\n`);
      }
    },
  });
  try {
    for await (const event of stream) {
      if (view) view.show(event);
      else printJson(event);
    }
  } finally {
    view?.end();
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
  }
}

export function tailCommand(sessions: Command): void {
  sessions
    .command("tail")
    .description("print the session's events over the API's stream, then live ones with the model's text as it streams (Ctrl-C ends)")
    .addArgument(sessionIdArgument())
    .addOption(new Option("--from <sequence>", "start at this sequence").argParser(fromSequence).default(1, "the first event"))
    .option("--no-deltas", "durable events only, no live frames (message deltas)")
    .option("--json", "print each event (live frames too, with sequence null) as one line of JSON")
    .action((sessionId: string, opts: { from: number; deltas: boolean; json?: boolean }, command: Command) =>
      tail(command, sessionId, { from: opts.from, deltas: opts.deltas, json: opts.json ?? false }),
    );
}
