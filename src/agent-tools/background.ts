/**
 * Background processes (`terminal {background: true}`), kept by the worker that started them, per
 * session: at most MAX_RUNNING running at once, each with its output in a ring of OUTPUT_CHARS, killed
 * (as a whole process group) by `process kill`, at their time limit, when their session is deleted and
 * when the worker shuts down. A session sees only its own: every lookup is by session and id.
 */
import type { ChildProcess } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { newId } from "../ids.js";
import { killGroup, killUser, onFinished, spawnLimited, type SandboxPlace, type SandboxUser } from "./sandbox/sandbox.js";

export const MAX_RUNNING = 4;
/** Characters of output kept per process: the newest, the oldest dropped first. */
export const OUTPUT_CHARS = 64 * 1024;
/** Processes a session's table keeps (running and exited); the oldest exited one makes room. */
const MAX_KEPT = 8;
/** An exited process stays readable this long. */
const KEEP_EXITED_MS = 30 * 60_000;
/** Input waiting for a process that does not read it. */
const MAX_PENDING_INPUT = 1024 * 1024;
/** How long `kill` and shutdown wait for a killed group's exit to be seen. */
const EXIT_WAIT_MS = 5_000;
/** Ids remembered as given by this worker. */
const MAX_GIVEN = 100_000;

const killUserOf = async (user: SandboxUser | null) => (user ? killUser(user) : undefined);

/** The newest output of a process; positions count every character ever written. */
class OutputRing {
  private text = "";
  private dropped = 0;

  append(chunk: string): void {
    this.text += chunk;
    if (this.text.length > OUTPUT_CHARS) {
      const cut = this.text.length - OUTPUT_CHARS;
      this.text = this.text.slice(cut);
      this.dropped += cut;
    }
  }

  get end(): number {
    return this.dropped + this.text.length;
  }

  /** What was written from `position` on, and how much of it is no longer kept. */
  since(position: number): { text: string; lost: number } {
    return { text: this.text.slice(Math.max(0, position - this.dropped)), lost: Math.max(0, this.dropped - position) };
  }

  /** Everything kept, and how many characters before it were dropped. */
  kept(): { text: string; dropped: number } {
    return { text: this.text, dropped: this.dropped };
  }
}

export class BackgroundProcess {
  readonly id = newId("proc");
  readonly startedAt = new Date();
  endedAt: Date | null = null;
  exitCode: number | null = null;
  signal: NodeJS.Signals | null = null;
  /** Why the worker ended it, if it did. */
  note: string | null = null;
  readonly output = new OutputRing();
  /** Where the last poll stopped reading. */
  polled = 0;
  readonly exited: Promise<void>;

  constructor(
    readonly command: string,
    readonly child: ChildProcess,
    timeoutMs: number,
  ) {
    const timer = setTimeout(() => this.stop(`killed at its ${Math.round(timeoutMs / 1000)} s time limit`), timeoutMs);
    for (const stream of [child.stdout!, child.stderr!]) {
      const decoder = new StringDecoder("utf8");
      stream.on("data", (chunk: Buffer) => this.output.append(decoder.write(chunk)));
    }
    // A process that exits or closes its input makes writes fail (EPIPE): that is `write`'s answer, not a crash.
    child.stdin?.on("error", () => undefined);
    this.exited = new Promise((resolve) => {
      const end = (code: number | null, signal: NodeJS.Signals | null) => {
        clearTimeout(timer);
        this.endedAt = new Date();
        this.exitCode = code;
        this.signal = signal;
        resolve();
      };
      child.on("error", (err) => {
        this.output.append(`could not run the command: ${err.message}\n`);
        end(null, null);
      });
      onFinished(child, end);
    });
  }

  get running(): boolean {
    return this.endedAt === null;
  }

  /** Kills the process's whole group, saying why. */
  stop(note: string): void {
    if (!this.running) return;
    this.note ??= note;
    killGroup(this.child);
  }

  /** Resolves when the process has exited, or after `ms`, or on `signal`: whichever comes first. */
  async settled(ms: number, signal?: AbortSignal): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      this.exited,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
        onAbort = resolve;
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }

  /** Writes to the process's input; the problem as text when it cannot. */
  write(data: string): Promise<string | null> {
    const stdin = this.child.stdin;
    if (!this.running) return Promise.resolve("the process has exited");
    if (!stdin || !stdin.writable) return Promise.resolve("the process's input is closed");
    if (stdin.writableLength > MAX_PENDING_INPUT) return Promise.resolve("the process is not reading its input; earlier input is still waiting");
    return new Promise((resolve) => stdin.write(data, (err) => resolve(err ? "the process's input is closed" : null)));
  }
}

export type StartResult = { process: BackgroundProcess } | { problem: string };

export class BackgroundProcesses {
  private readonly sessions = new Map<string, Map<string, BackgroundProcess>>();
  /** Ids this worker gave, newest last (a bounded memory): an unknown id is then told apart from another worker's. */
  private readonly given = new Set<string>();

  constructor(private readonly timeoutMs: number) {}

  start(sessionId: string, command: string, place: SandboxPlace, timeoutMs = this.timeoutMs): StartResult {
    const table = this.sessions.get(sessionId) ?? new Map<string, BackgroundProcess>();
    const all = [...table.values()];
    if (all.filter((p) => p.running).length >= MAX_RUNNING) {
      return { problem: `at most ${MAX_RUNNING} background processes run at once in a session; wait for one to end or kill one (process list shows them)` };
    }
    const oldest = all.find((p) => !p.running);
    if (all.length >= MAX_KEPT && oldest) table.delete(oldest.id);
    const started = new BackgroundProcess(
      command,
      spawnLimited("/bin/sh", ["-c", command], place, { stdin: true, background: true }),
      Math.min(timeoutMs, this.timeoutMs),
    );
    table.set(started.id, started);
    this.given.add(started.id);
    if (this.given.size > MAX_GIVEN) this.given.delete(this.given.values().next().value!);
    this.sessions.set(sessionId, table);
    void started.exited.then(() => {
      setTimeout(() => this.forget(sessionId, started.id), KEEP_EXITED_MS).unref();
    });
    return { process: started };
  }

  /** Whether this worker gave the id (the process may since have been forgotten). */
  issued(id: string): boolean {
    return this.given.has(id);
  }

  /** The session's processes, oldest first. */
  list(sessionId: string): BackgroundProcess[] {
    return [...(this.sessions.get(sessionId)?.values() ?? [])];
  }

  /** The session's process with that id; undefined for another session's or an unknown one. */
  get(sessionId: string, id: string): BackgroundProcess | undefined {
    return this.sessions.get(sessionId)?.get(id);
  }

  /** The session is gone: its processes are killed and forgotten, and (with a user of its own) every process of that user. */
  async endSession(sessionId: string, user: SandboxUser | null): Promise<void> {
    const processes = this.list(sessionId);
    this.sessions.delete(sessionId);
    for (const p of processes) p.stop("killed: the session was deleted");
    await killUserOf(user);
    await Promise.all(processes.map((p) => p.settled(EXIT_WAIT_MS)));
  }

  /** The worker shuts down: every process it started is killed, with what left their groups (`userOf` the session's user). */
  async close(userOf: (sessionId: string) => SandboxUser | null): Promise<void> {
    const tables = [...this.sessions.entries()];
    this.sessions.clear();
    const processes = tables.flatMap(([, table]) => [...table.values()]);
    for (const p of processes) p.stop("killed: the worker shut down");
    await Promise.all(tables.map(([sessionId, table]) => ([...table.values()].some((p) => p.running) ? killUserOf(userOf(sessionId)) : undefined)));
    await Promise.all(processes.map((p) => p.settled(EXIT_WAIT_MS)));
  }

  private forget(sessionId: string, id: string): void {
    const table = this.sessions.get(sessionId);
    table?.delete(id);
    if (table?.size === 0) this.sessions.delete(sessionId);
  }
}
