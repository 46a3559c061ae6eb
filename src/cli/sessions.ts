/**
 * `ops sessions tail | inspect`: a session as the service's own stores hold it, read directly (no API key):
 * the durable log on its Redis Stream, followed with a blocking XREAD, and the session's record, runtime
 * state, turn lock and pending work.
 */
import { Argument, Option, type Command } from "commander";
import type { Envelope } from "../sessions/domain/events.js";
import { AppError } from "../errors.js";
import { EventLog } from "../sessions/redis/event-log.js";
import { operatorConfig, withRedis } from "./backends.js";
import { eventLine } from "./event-line.js";
import { inspectSession } from "./session-inspect.js";
import { checked } from "./program.js";

/** Ids the service makes (`ses_…`), bounded, and never holding what would change a Redis key's hash tag. */
export const sessionIdArgument = () =>
  new Argument("<sessionId>", "the session's id (ses_…)").argParser(
    checked((raw) => (/^[A-Za-z0-9_-]{1,100}$/.test(raw) ? raw : { problem: "a session id is 1..100 of A-Z a-z 0-9 _ -" })),
  );

/** `--from`: a sequence, or the log's stream id for it (`<sequence>-0`). */
const fromSequence = checked((raw) => {
  const m = /^(\d{1,15})(?:-0)?$/.exec(raw);
  return m && Number(m[1]) >= 1 ? Number(m[1]) : { problem: "--from is a sequence (1, 2, …) or its stream id (<sequence>-0)" };
});

const PAGE = 500;
/** How long one blocking read waits before the tail checks the session still exists. */
const BLOCK_MS = 5_000;

async function tail(sessionId: string, opts: { from: number; follow: boolean; json: boolean }): Promise<void> {
  await withRedis(operatorConfig(), async ({ redis, keys, where }) => {
    const log = new EventLog(redis, keys);
    if (!(await log.identity(sessionId))) throw new AppError("not_found", `no session ${sessionId} in Redis (${where}); a deleted session has none`);
    const print = (events: Envelope[]) => {
      for (const e of events) process.stdout.write(`${opts.json ? JSON.stringify(e) : eventLine(e)}\n`);
      return events.at(-1)?.sequence;
    };
    let after = opts.from - 1;
    for (;;) {
      const page = await log.page(sessionId, after, PAGE);
      after = print(page.events.map((e) => e.envelope)) ?? after;
      if (!page.more) break;
    }
    if (!opts.follow) return;
    const blocking = redis.duplicate();
    try {
      for (;;) {
        const fresh = await log.follow(blocking, sessionId, after, PAGE, BLOCK_MS);
        after = print(fresh) ?? after;
        if (fresh.length === 0 && !(await log.identity(sessionId))) {
          process.stderr.write(`session ${sessionId} was deleted\n`);
          return;
        }
      }
    } finally {
      blocking.disconnect();
    }
  });
}

export function sessionsCommands(program: Command): void {
  const sessions = program.command("sessions").description("a session as Redis and MongoDB hold it (REDIS_URL, REDIS_KEY_PREFIX, MONGO_URL)");

  sessions
    .command("tail")
    .description("print the session's events from its Redis Stream, then follow new ones (Ctrl-C ends)")
    .addArgument(sessionIdArgument())
    .addOption(new Option("--from <sequence>", "start at this sequence, or its stream id <sequence>-0").argParser(fromSequence).default(1, "the first event"))
    .option("--no-follow", "print the events there are, and end")
    .option("--json", "print each envelope as one line of JSON")
    .action((sessionId: string, opts: { from: number; follow: boolean; json?: boolean }) =>
      tail(sessionId, { from: opts.from, follow: opts.follow, json: opts.json ?? false }),
    );

  sessions
    .command("inspect")
    .description("print the session's record, runtime state, turn lock and pending work")
    .addArgument(sessionIdArgument())
    .option("--json", "print it as JSON")
    .action((sessionId: string, opts: { json?: boolean }) => inspectSession(sessionId, opts.json ?? false));
}
