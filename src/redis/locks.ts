/**
 * Turn locks: redlock over Redis, extended while the holder works. The lock's random value doubles as
 * a fencing token: the event log's append script refuses writes whose token is not the current value.
 */
import type { Redis } from "ioredis";
import Redlock, { type Lock } from "redlock";
import type { Keys } from "./keys.js";

export type LockOutcome<T> = { acquired: false } | { acquired: true; value: T };

export class Locks {
  private readonly redlock: Redlock;

  constructor(
    redis: Redis,
    private readonly keys: Keys,
  ) {
    // No retries: a busy lock means another worker has the session, and it re-checks the mailbox after.
    this.redlock = new Redlock([redis], { retryCount: 0, driftFactor: 0.01 });
  }

  /** Runs `work` holding the session's turn lock, extended while it works; `lost` aborts if an extension fails. */
  async withSessionLock<T>(sessionId: string, ttlMs: number, work: (fence: string, lost: AbortSignal) => Promise<T>): Promise<LockOutcome<T>> {
    let lock: Lock;
    try {
      lock = await this.redlock.acquire([this.keys.sessionLock(sessionId)], ttlMs);
    } catch {
      return { acquired: false };
    }
    const lost = new AbortController();
    const extender = setInterval(() => {
      lock.extend(ttlMs).then(
        (extended) => (lock = extended),
        () => lost.abort(),
      );
    }, Math.max(100, Math.floor(ttlMs / 3)));
    try {
      return { acquired: true, value: await work(lock.value, lost.signal) };
    } finally {
      clearInterval(extender);
      await lock.release().catch(() => undefined);
    }
  }
}
