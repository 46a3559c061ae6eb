/**
 * One lane per session for this process's transitions: they run one after another, each planned from
 * the state the previous one committed. Concurrent writers to one session in one process then never
 * refuse each other (the commit check only ever fails for another process's write), and a transition
 * queued behind another needs no read of its own.
 */
import type { Snapshot } from "./redis/log-entries.js";

export interface Lane {
  /** The state after the lane's last commit, while transitions are queued on it. */
  known: Snapshot | null;
}

export class SessionLanes {
  private readonly lanes = new Map<string, Lane & { tail: Promise<void>; queued: number }>();

  async run<T>(sessionId: string, step: (lane: Lane) => Promise<T>): Promise<T> {
    let lane = this.lanes.get(sessionId);
    if (!lane) {
      lane = { known: null, tail: Promise.resolve(), queued: 0 };
      this.lanes.set(sessionId, lane);
    }
    lane.queued++;
    const current = lane.tail.then(() => step(lane));
    lane.tail = current.then(
      () => undefined,
      () => undefined,
    );
    try {
      return await current;
    } finally {
      // The last one out closes the lane: a snapshot is only trusted while the lane is busy.
      if (--lane.queued === 0) this.lanes.delete(sessionId);
    }
  }
}
