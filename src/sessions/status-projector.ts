/**
 * Writes sessions' statuses and usage totals onto their MongoDB records after the commits that changed them, off the
 * path of the answer: the log is the authority and the record follows it. Each commit that changes the
 * status marked its writer's `projections` member in the same script, so a write that fails, or a
 * process that dies first, leaves the mark to the recovery sweep (`SessionTransitions.repairProjection`).
 *
 * Writes for one session are coalesced: while one is under way, later commits only raise the version
 * to write next, and one write of the latest status clears every mark it covers (the record's version
 * guard makes a write of version V stand for all earlier ones).
 */
import type { Logger } from "../log.js";
import type { Intents } from "./redis/intents.js";
import type { StateProjection } from "./store/sessions.js";

/** The record's projection of the runtime state (MongoDB). */
export interface StatusProjection {
  /** Writes each part as of its state version, unless the record already reflects a later one. */
  projectState(sessionId: string, projection: StateProjection): Promise<void>;
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

/** Record writes under way at once, so a burst of commits cannot flood MongoDB. */
const CONCURRENCY = 16;

export class StatusProjector {
  private readonly due = new Map<string, Due>();
  private readonly writing = new Set<string>();
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
    this.pump();
  }

  /** Resolves once every scheduled write has been tried (at shutdown). */
  async drain(): Promise<void> {
    if (this.due.size === 0 && this.writing.size === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private pump(): void {
    for (const [sessionId, due] of this.due) {
      if (this.writing.size >= CONCURRENCY) return;
      if (this.writing.has(sessionId)) continue;
      this.due.delete(sessionId);
      this.writing.add(sessionId);
      void this.write(sessionId, due).finally(() => {
        this.writing.delete(sessionId);
        this.pump();
        if (this.due.size === 0 && this.writing.size === 0) this.idle.splice(0).forEach((resolve) => resolve());
      });
    }
  }

  private async write(sessionId: string, due: Due): Promise<void> {
    try {
      await this.records.projectState(sessionId, due.projection);
    } catch (err) {
      this.logger.warn("session record not updated; the recovery sweep will", { sessionId, err });
      return;
    }
    await this.intents.clearProjections(due.members).catch((err: unknown) => this.logger.warn("intent marks not cleared", { sessionId, err }));
  }
}
