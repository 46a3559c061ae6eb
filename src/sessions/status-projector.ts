/**
 * Writes sessions' statuses and usage totals onto their MongoDB records after the commits that changed them, off the
 * path of the answer: the log is the authority and the record follows it. Each commit that changes the
 * status marked its writer's `projections` member in the same script, so a write that fails, or a
 * process that dies first, leaves the mark to the recovery sweep (`SessionTransitions.repairProjection`).
 *
 * Writes are coalesced twice. Per session: later commits only raise the version to write next, and one
 * write of the latest status clears every mark it covers (the record's version guard makes a write of
 * version V stand for all earlier ones), so a status passed through within a tick (a short turn's
 * `running`) is never written. Across sessions: what gathered during a tick goes out as one command,
 * so MongoDB parses one request for many sessions' records. Reads never wait for either: a session's
 * status is read from its runtime state, and lists by status merge the sessions whose marks are open.
 */
import type { Logger } from "../log.js";
import type { Intents } from "./redis/intents.js";
import type { StateProjection } from "./store/sessions.js";

export interface ProjectionWrite {
  sessionId: string;
  projection: StateProjection;
}

/** The record's projection of the runtime state (MongoDB). */
export interface StatusProjection {
  /** Writes each part as of its state version, unless the record already reflects a later one. */
  projectState(sessionId: string, projection: StateProjection): Promise<void>;
  /** The same for several sessions in one command; resolves with the sessions whose write (and what follows it) is done. */
  projectStates(batch: readonly ProjectionWrite[]): Promise<ReadonlySet<string>>;
}

interface Due {
  projection: StateProjection;
  /** The `projections` members this write settles. */
  members: string[];
}

/** The later of two parts of a projection, by state version. */
function later<P extends { version: number }>(a: P | undefined, b: P | undefined): P | undefined {
  if (!a || !b) return a ?? b;
  return b.version > a.version ? b : a;
}

/** How long commits' projections gather before one write takes them (a record lags its log by about this much). */
const TICK_MS = 20;
/** Sessions one write covers at most. */
const BATCH = 200;
/** Writes under way at once, so a burst of commits cannot flood MongoDB. */
const CONCURRENCY = 4;

export class StatusProjector {
  private readonly due = new Map<string, Due>();
  /** Sessions whose write is under way: a later projection of one waits for it, so its writes land in order. */
  private readonly writing = new Set<string>();
  private batches = 0;
  private timer: NodeJS.Timeout | undefined;
  private idle: (() => void)[] = [];

  constructor(
    private readonly records: StatusProjection,
    private readonly intents: Intents,
    private readonly logger: Logger,
  ) {}

  /** Schedules the record write of what a commit changed; `member` is the commit's mark. */
  project(sessionId: string, projection: StateProjection, member: string): void {
    const due = this.due.get(sessionId);
    if (!due) this.due.set(sessionId, { projection, members: [member] });
    else {
      due.members.push(member);
      const [status, usage] = [later(due.projection.status, projection.status), later(due.projection.usage, projection.usage)];
      due.projection = { ...(status ? { status } : {}), ...(usage ? { usage } : {}) };
    }
    this.tick();
  }

  /** Writes what is due at once and resolves once every scheduled write has been tried (at shutdown). */
  async drain(): Promise<void> {
    if (this.due.size === 0 && this.batches === 0) return;
    const done = new Promise<void>((resolve) => this.idle.push(resolve));
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pump();
    await done;
  }

  private tick(): void {
    if (this.timer || this.due.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, TICK_MS);
  }

  private pump(): void {
    while (this.batches < CONCURRENCY) {
      const batch: [string, Due][] = [];
      for (const entry of this.due) {
        if (batch.length >= BATCH) break;
        if (!this.writing.has(entry[0])) batch.push(entry);
      }
      if (batch.length === 0) break;
      for (const [sessionId] of batch) {
        this.due.delete(sessionId);
        this.writing.add(sessionId);
      }
      this.batches++;
      void this.write(batch).finally(() => {
        this.batches--;
        for (const [sessionId] of batch) this.writing.delete(sessionId);
        if (this.idle.length > 0) this.pump();
        else this.tick();
        if (this.due.size === 0 && this.batches === 0) this.idle.splice(0).forEach((resolve) => resolve());
      });
    }
  }

  private async write(batch: [string, Due][]): Promise<void> {
    let done: ReadonlySet<string>;
    try {
      done = await this.records.projectStates(batch.map(([sessionId, due]) => ({ sessionId, projection: due.projection })));
    } catch (err) {
      this.logger.warn("session records not updated; the recovery sweep will", { sessions: batch.length, err });
      return;
    }
    if (done.size < batch.length) this.logger.warn("some sessions' notices were not queued; the recovery sweep will", { sessions: batch.length - done.size });
    const members = batch.filter(([sessionId]) => done.has(sessionId)).flatMap(([, due]) => due.members);
    if (members.length === 0) return;
    await this.intents.clearProjections(members).catch((err: unknown) => this.logger.warn("intent marks not cleared", { sessions: batch.length, err }));
  }
}
