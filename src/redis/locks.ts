/**
 * Locks over Redis (redlock). Turn locks, extended while the holder works: the lock's random value
 * doubles as a fencing token, as the event log's append script refuses writes whose token is not the
 * current value. Credential refresh locks, which a second process waits for instead of skipping. Record
 * locks, held for one read-modify-write of a MongoDB record, so that writers of one record take turns
 * (FerretDB applies no update atomically: two at once can lose one, whatever their filters).
 */
import type { RedisClient } from "./client.js";
import Redlock, { ExecutionError, type Lock } from "redlock";
import { unavailable } from "../errors.js";
import type { Keys } from "./keys.js";

/** `after`: what the holder read once the lock was let go (`afterRelease`). */
export type LockOutcome<T, A = undefined> = { acquired: false } | { acquired: true; value: T; after?: A };

/** A refresh is one HTTP request with a 10 s timeout: the lock outlives it, and a waiter gives up after about as long. */
const REFRESH_LOCK_TTL_MS = 20_000;
const REFRESH_WAIT = { retryCount: 100, retryDelay: 200, retryJitter: 50 };
/** A record write is a read and a write: the lock outlives many of them, and a waiter gives up after about 5 s. */
const RECORD_LOCK_TTL_MS = 10_000;
const RECORD_WAIT = { retryCount: 100, retryDelay: 50, retryJitter: 25 };

export class Locks {
  private readonly redlock: Redlock;
  private readonly waiting: Redlock;
  private readonly records: Redlock;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {
    // No retries: a busy lock means another worker has the session, and it re-checks the mailbox after.
    this.redlock = new Redlock([redis], { retryCount: 0, driftFactor: 0.01 });
    this.waiting = new Redlock([redis], { ...REFRESH_WAIT, driftFactor: 0.01 });
    this.records = new Redlock([redis], { ...RECORD_WAIT, driftFactor: 0.01 });
  }

  /** Runs `work` (one short read-modify-write of the record) while no other writer of the record runs; waits its turn. */
  async withRecord<T>(collection: string, id: string, work: () => Promise<T>): Promise<T> {
    let lock: Lock;
    try {
      lock = await this.records.acquire([this.keys.recordLock(collection, id)], RECORD_LOCK_TTL_MS);
    } catch (err) {
      if (err instanceof ExecutionError) throw unavailable("the record is busy; retry later", err);
      throw err;
    }
    try {
      return await work();
    } finally {
      await lock.release().catch(() => undefined);
    }
  }

  /**
   * Runs `work` holding the credential's refresh lock, waiting for another holder to finish first (the
   * waiter then finds the token refreshed and does not refresh again). Throws when it waited too long.
   */
  async withCredentialRefresh<T>(credentialId: string, work: () => Promise<T>): Promise<T> {
    let lock: Lock;
    try {
      lock = await this.waiting.acquire([this.keys.credentialRefresh(credentialId)], REFRESH_LOCK_TTL_MS);
    } catch (err) {
      if (err instanceof ExecutionError) throw unavailable("another refresh of the credential is taking too long; retry later", err);
      throw err;
    }
    try {
      return await work();
    } finally {
      // A failed release only lets the lock lapse at its TTL: the work's outcome stands.
      await this.waiting.release(lock, { retryCount: 0 }).catch(() => undefined);
    }
  }

  /**
   * Runs `work` holding the session's turn lock, extended while it works; `lost` aborts if an extension
   * fails or `stop` (the process's shutdown) aborts. `stop` is linked by a listener removed on release,
   * not by `AbortSignal.any`, which leaves on the process-long signal a weak reference and a finalizer
   * entry for every turn's signal until a full collection (about 1,400 of them between two, measured).
   * When `work` succeeds, what `afterRelease` sends goes right behind the release, in its round trip:
   * Redis runs it once the lock is let go (one connection keeps their order).
   */
  async withSessionLock<T, A = undefined>(
    sessionId: string,
    ttlMs: number,
    stop: AbortSignal,
    work: (fence: string, lost: AbortSignal) => Promise<T>,
    afterRelease?: () => Promise<A>,
  ): Promise<LockOutcome<T, A>> {
    let lock: Lock;
    try {
      lock = await this.redlock.acquire([this.keys.sessionLock(sessionId)], ttlMs);
    } catch {
      return { acquired: false };
    }
    const lost = new AbortController();
    const onStop = () => lost.abort(stop.reason);
    if (stop.aborted) onStop();
    else stop.addEventListener("abort", onStop, { once: true });
    const extender = setInterval(
      () => {
        lock.extend(ttlMs).then(
          (extended) => (lock = extended),
          () => lost.abort(),
        );
      },
      Math.max(100, Math.floor(ttlMs / 3)),
    );
    const letGo = () => {
      stop.removeEventListener("abort", onStop);
      clearInterval(extender);
      return lock.release().catch(() => undefined);
    };
    let value: T;
    try {
      value = await work(lock.value, lost.signal);
    } catch (err) {
      await letGo();
      throw err;
    }
    // redlock sends the release before its first await, so what `afterRelease` sends next follows it.
    const released = letGo();
    const after = afterRelease?.();
    after?.catch(() => undefined); // awaited below, once the release is answered
    await released;
    return after ? { acquired: true, value, after: await after } : { acquired: true, value };
  }

  /**
   * Whether each session's turn lock is held: a free one means no live worker is on it. One command
   * each, not a pipeline: on a cluster the locks are in different slots (auto-pipelining still sends
   * them together).
   */
  async sessionsLocked(sessionIds: string[]): Promise<boolean[]> {
    return Promise.all(
      sessionIds.map((id) =>
        this.redis.exists(this.keys.sessionLock(id)).then(
          (n) => n > 0,
          () => true,
        ),
      ),
    );
  }

  /** The session's turn lock as Redis holds it: its holder's token and how long it has left; null when free. */
  async turnLock(sessionId: string): Promise<{ token: string; ttlMs: number } | null> {
    const key = this.keys.sessionLock(sessionId);
    const [token, ttlMs] = await Promise.all([this.redis.get(key), this.redis.pttl(key)]);
    return token === null ? null : { token, ttlMs };
  }
}
