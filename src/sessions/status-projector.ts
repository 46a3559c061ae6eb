/**
 * Writes sessions' statuses and usage totals onto their MongoDB records after the commits that changed them, off the
 * path of the answer: the log is the authority and the record follows it. Each commit that changes the
 * status marked its writer's `projections` member in the same script, so a write that fails, or a
 * process that dies first, leaves the mark to the recovery sweep (`SessionTransitions.repairProjection`).
 *
 * Writes wait a short tick and are coalesced three ways. Per session: later commits only raise the
 * version to write next, and one write of the latest status clears every mark it covers (the record's
 * version guard makes a write of version V stand for all earlier ones), so a status passed through within
 * the tick, or while a write is under way, is never written. Across processes: a status another
 * process's commit has since changed (a turn a worker ended, after an API pod's `running`) is not
 * written either; that commit marked its own writer, which writes the record. Across sessions: what
 * gathered goes out as one command, so MongoDB parses one request for many sessions' records. Reads
 * never wait for any of it: a session's status is read from its runtime state, and lists by status merge
 * the sessions whose marks are open.
 *
 * Other writes of a session's record in this process that MongoDB-wire servers without atomic updates
 * could lose beside a projection (the generated title) take their turn with its writes (`exclusive`).
 */
import type { Logger } from "../log.js";
import type { Intents } from "./redis/intents.js";
import type { StateSummary } from "./redis/log-entries.js";
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

/** Each session's runtime status now; undefined for one without runtime state (deleted). */
export type RuntimeSummaries = (sessionIds: string[]) => Promise<Map<string, StateSummary | undefined>>;

/** The later of two parts of a projection, by state version. */
function later<P extends { version: number }>(a: P | undefined, b: P | undefined): P | undefined {
  if (!a || !b) return a ?? b;
  return b.version > a.version ? b : a;
}

/**
 * How long commits' projections gather before one write takes them: long enough that a short turn's
 * `running` is overwritten by its end before it is written, and that many sessions' writes share one
 * command; short beside what a status list or a webhook receiver would notice (both merge or follow the log).
 */
const TICK_MS = 25;
/** Sessions one write covers at most. */
const BATCH = 200;
/** Writes under way at once, so a burst of commits cannot flood MongoDB. */
const CONCURRENCY = 4;

export class StatusProjector {
  private readonly due = new Map<string, Due>();
  /** Sessions whose write (or `exclusive` work) is under way: a later projection of one waits for it, so its writes land in order. */
  private readonly writing = new Map<string, Promise<unknown>>();
  private batches = 0;
  private timer: NodeJS.Timeout | undefined;
  private idle: (() => void)[] = [];

  constructor(
    private readonly records: StatusProjection,
    private readonly intents: Intents,
    private readonly runtime: RuntimeSummaries,
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

  /**
   * Runs `work` (another write of the session's record) when no projection of the session is being
   * written, and holds its projections back until `work` is done.
   */
  async exclusive<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    for (let under = this.writing.get(sessionId); under; under = this.writing.get(sessionId)) await under.catch(() => undefined);
    const done = work();
    this.writing.set(sessionId, done);
    try {
      return await done;
    } finally {
      if (this.writing.get(sessionId) === done) this.writing.delete(sessionId);
      this.next();
    }
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

  /** After a write or `exclusive` work: what is due goes out at once while draining, else after a tick. */
  private next(): void {
    if (this.idle.length > 0) this.pump();
    else this.tick();
    if (this.due.size === 0 && this.batches === 0) this.idle.splice(0).forEach((resolve) => resolve());
  }

  private pump(): void {
    while (this.batches < CONCURRENCY) {
      const batch: [string, Due][] = [];
      for (const entry of this.due) {
        if (batch.length >= BATCH) break;
        if (!this.writing.has(entry[0])) batch.push(entry);
      }
      if (batch.length === 0) break;
      const written = this.write(batch);
      for (const [sessionId] of batch) {
        this.due.delete(sessionId);
        this.writing.set(sessionId, written);
      }
      this.batches++;
      void written.finally(() => {
        this.batches--;
        for (const [sessionId] of batch) if (this.writing.get(sessionId) === written) this.writing.delete(sessionId);
        this.next();
      });
    }
  }

  private async write(batch: [string, Due][]): Promise<void> {
    let done: ReadonlySet<string>;
    let writes: ProjectionWrite[];
    try {
      writes = await this.stillDue(batch);
      done = await this.records.projectStates(writes);
    } catch (err) {
      this.logger.warn("session records not updated; the recovery sweep will", { sessions: batch.length, err });
      return;
    }
    if (done.size < writes.length) this.logger.warn("some sessions' notices were not queued; the recovery sweep will", { sessions: writes.length - done.size });
    const left = new Set(writes.map((w) => w.sessionId));
    const members = batch.filter(([sessionId]) => done.has(sessionId) || !left.has(sessionId)).flatMap(([, due]) => due.members);
    if (members.length === 0) return;
    await this.intents.clearProjections(members).catch((err: unknown) => this.logger.warn("intent marks not cleared", { sessions: batch.length, err }));
  }

  /**
   * What of the batch still needs writing: a status whose session's runtime status has since changed is
   * left to the commit that changed it (it marked its own writer).
   */
  private async stillDue(batch: [string, Due][]): Promise<ProjectionWrite[]> {
    const now = await this.runtime(batch.map(([sessionId]) => sessionId));
    return batch.flatMap(([sessionId, { projection }]) => {
      const current = now.get(sessionId);
      // Without runtime state (a deleted session's record goes with it) the record is written as it was asked.
      const status = projection.status && (!current || projection.status.status === current.status) ? projection.status : undefined;
      if (!status && !projection.usage) return [];
      return [{ sessionId, projection: { ...(status ? { status } : {}), ...(projection.usage ? { usage: projection.usage } : {}) } }];
    });
  }
}
