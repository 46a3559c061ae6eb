/**
 * The worker side of wake-ups: a consumer in the `workers` group reads the wake-up stream and hands
 * each session to the actor; entries are acknowledged once handled. The recovery sweep runs beside it:
 * entries a dead consumer left unacknowledged are claimed once their session's lock is free (and idle
 * `claimIdleMs`), sessions still marked pending that long with a free lock are looked at again (nothing
 * handed to the workers is lost), the consumers of stopped workers are removed, and session records a
 * writer may have left disagreeing with their logs are rewritten from them. Every shard's stream is
 * read (one blocking connection per group of shards: `shard-connections.ts`) and swept.
 */
import { isAppError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Intents } from "../sessions/redis/intents.js";
import type { Locks } from "../redis/locks.js";
import type { ShardReader } from "../redis/shard-connections.js";
import type { Wakeup, Wakeups } from "../sessions/redis/wakeups.js";
import type { SessionTransitions } from "../sessions/transitions.js";
import { unreachableStore } from "../store-errors.js";
import { joining, SpanKind, tracing, withSpan } from "../telemetry/tracing.js";
import type { KickoffTimer } from "./kickoff-timer.js";
import type { SessionActor } from "./session-actor.js";

export interface WakeupOptions {
  consumer: string;
  concurrency: number;
  claimIdleMs: number;
  sweepIntervalMs: number;
  /** The turn lock's lifetime: a heartbeat lives as long, so both lapse together when a worker dies. */
  lockTtlMs: number;
  /** Whether to read the wake-up stream (worker role) or only sweep (scheduler role). */
  consume: boolean;
}

const MAX_RETRIES = 4;
const RETRY_BASE_MS = 250;
/** A store out of reach is waited for: a kept wake-up is tried again at least this often. */
const RETRY_MAX_MS = 8_000;
const SWEEP_BATCH = 50;
/**
 * A consumer whose heartbeat lapsed, that holds nothing and has not read for this long, is a stopped
 * process's: a live one reads every two seconds and renews its heartbeat every sweep. Looked for this often.
 */
const DEAD_CONSUMER_IDLE_MS = 5_000;
/** How old a writer's projection mark must be before the sweep repairs the record for it. */
const PROJECTION_REPAIR_MS = 5_000;

/** A failure that passes by itself: a store out of reach, a record not readable yet, a session too contended. */
const transient = (err: unknown) => isAppError(err, "busy", "unavailable") || unreachableStore(err) !== undefined;

type RunOutcome = { ok: true } | { ok: false; err: unknown };

export class WakeupConsumer {
  private stopped = false;
  private readonly active = new Map<string, Promise<RunOutcome>>();
  private readonly again = new Set<string>();
  /** Sessions whose kept wake-up waits for its next try here: the sweep does not serve them again meanwhile. */
  private readonly retrying = new Set<string>();
  /** The trace contexts of the wake-ups each session's next pass serves (tracing on only). */
  private readonly asked = new Map<string, string[]>();
  private sweeper: NodeJS.Timeout | null = null;
  private loop: Promise<void> | null = null;
  /** When this worker next removes dead consumers: at its first sweep, then every DEAD_CONSUMER_IDLE_MS. */
  private nextConsumerSweep = 0;

  constructor(
    /** The groups of shards read together, each on its connection. */
    private readonly readers: ShardReader[],
    private readonly wakeups: Wakeups,
    private readonly intents: Intents,
    private readonly locks: Locks,
    private readonly transitions: SessionTransitions,
    private readonly actor: SessionActor,
    private readonly kickoff: KickoffTimer,
    private readonly logger: Logger,
    private readonly opts: WakeupOptions,
  ) {}

  async start(): Promise<void> {
    await this.wakeups.ensureGroup();
    if (this.opts.consume) {
      await this.wakeups.heartbeat(this.opts.consumer, this.heartbeatMs());
      await this.wakeups.register(this.opts.consumer);
      this.loop = Promise.all(this.readers.map((reader) => this.read(reader))).then(() => undefined);
    }
    this.sweeper = setInterval(() => void this.sweep(), this.opts.sweepIntervalMs);
  }

  /**
   * One run per session at a time in this process; a wake-up during a run asks for one more. Resolves
   * whether the run finished, or why not (whoever asked decides how to try again).
   */
  private handle(sessionId: string, traceparent: string | null = null): Promise<RunOutcome> {
    if (traceparent && tracing()) this.asked.set(sessionId, [...(this.asked.get(sessionId) ?? []), traceparent]);
    const running = this.active.get(sessionId);
    if (running) {
      this.again.add(sessionId);
      return running;
    }
    const run = (async (): Promise<RunOutcome> => {
      try {
        do {
          this.again.delete(sessionId);
          await this.pass(sessionId);
        } while (this.again.has(sessionId) && !this.stopped);
        return { ok: true };
      } catch (err) {
        // A session too contended to record a step, or a store out of reach, is expected now and then; anything else is not.
        this.logger[transient(err) ? "warn" : "error"]("session processing failed", { sessionId, err });
        return { ok: false, err };
      } finally {
        this.active.delete(sessionId);
      }
    })();
    this.active.set(sessionId, run);
    return run;
  }

  /** One pass over the session, in the trace of the wake-ups that asked for it (`joining`: the first is its parent, the others links). */
  private pass(sessionId: string): Promise<void> {
    if (!tracing()) return this.actor.process(sessionId);
    const asked = this.asked.get(sessionId) ?? [];
    this.asked.delete(sessionId);
    return withSpan("session.process", { "session.id": sessionId, "agent_sessions.wakeups": asked.length }, () => this.actor.process(sessionId), {
      kind: SpanKind.CONSUMER,
      ...joining(asked),
    });
  }

  /**
   * Acknowledges the entry once its session is handled. One that failed is kept (unacknowledged) and
   * tried again with backoff: for as long as the failure is a store out of reach (or a record not
   * readable yet), MAX_RETRIES times for anything else (then the pending hint is the backstop).
   */
  private async handleEntry(entry: Wakeup, retry = 0): Promise<void> {
    const { entryId, sessionId } = entry;
    const outcome: RunOutcome = sessionId ? await this.handle(sessionId, retry === 0 ? entry.traceparent : null) : { ok: true };
    // Stopped mid-way: left unacknowledged, so another worker claims it.
    if (this.stopped) return;
    if (sessionId && !outcome.ok && (retry < MAX_RETRIES || transient(outcome.err))) {
      this.retrying.add(sessionId);
      setTimeout(
        () => {
          this.retrying.delete(sessionId);
          void this.handleEntry(entry, retry + 1);
        },
        Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** retry),
      ).unref();
      return;
    }
    await this.wakeups.ack(entry.shard, entryId);
  }

  /** Reads one group of shards' streams; the groups share the worker's concurrency. */
  private async read({ shards, connection }: ShardReader): Promise<void> {
    while (!this.stopped) {
      if (this.active.size >= this.opts.concurrency) {
        await Promise.race(this.active.values());
        continue;
      }
      let entries: Wakeup[];
      try {
        entries = await this.wakeups.read(connection.get(), shards, this.opts.consumer, Math.max(1, this.opts.concurrency - this.active.size), 2_000);
      } catch (err) {
        if (this.stopped) return;
        connection.failed();
        this.logger.warn("reading wake-ups failed; retrying", { err });
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      for (const entry of entries) void this.handleEntry(entry);
    }
  }

  private async sweep(): Promise<void> {
    if (this.stopped) return;
    try {
      if (this.opts.consume) await this.takeOver();
      const marked = await this.intents.duePending(Date.now() - this.opts.claimIdleMs, SWEEP_BATCH);
      const busy = await this.locks.sessionsLocked(marked);
      for (const [i, sessionId] of marked.entries()) if (!busy[i] && !this.active.has(sessionId) && !this.retrying.has(sessionId)) void this.handle(sessionId);
      if (this.opts.consume && Date.now() >= this.nextConsumerSweep) {
        this.nextConsumerSweep = Date.now() + DEAD_CONSUMER_IDLE_MS;
        let removed = 0;
        for (const shard of this.shards()) removed += await this.wakeups.removeIdleConsumers(shard, DEAD_CONSUMER_IDLE_MS, this.opts.consumer);
        if (removed > 0) this.logger.info("removed the wake-up consumers of stopped workers", { removed });
      }
      // A writer's mark older than this: its writer died between its two writes, or failed to write the
      // record. Not sooner: on FerretDB a repair racing a slow live writer's record writes can undo another
      // field of theirs (its updates are not atomic), and a lagging record only delays lists.
      for (const member of await this.intents.dueProjections(Date.now() - Math.max(this.opts.sweepIntervalMs, PROJECTION_REPAIR_MS), SWEEP_BATCH)) {
        await this.transitions.repairProjection(member);
      }
      await this.kickoff.expire(SWEEP_BATCH);
    } catch (err) {
      this.logger.warn("wake-up sweep failed", { err });
    }
  }

  /**
   * Takes the wake-ups of consumers whose heartbeat lapsed (their workers died), those whose session's
   * lock is free (the dead holder's lapses within LOCK_TTL_MS); and serves again this worker's own that
   * it failed to acknowledge (a Redis blip). A live consumer's are never taken, however long its turn.
   */
  private async takeOver(): Promise<void> {
    const { consumer, claimIdleMs } = this.opts;
    await this.wakeups.heartbeat(consumer, this.heartbeatMs());
    for (const shard of this.shards()) {
      for (const dead of await this.wakeups.deadHolders(shard, consumer)) {
        const held = await this.wakeups.heldBy(shard, dead, claimIdleMs, SWEEP_BATCH);
        await Promise.all(held.filter((e) => e.sessionId === null).map((e) => this.wakeups.ack(shard, e.entryId)));
        const named = held.filter((e): e is Wakeup & { sessionId: string } => e.sessionId !== null);
        const busy = await this.locks.sessionsLocked(named.map((e) => e.sessionId));
        const free = named.filter((_, i) => !busy[i]).map((e) => e.entryId);
        for (const entry of await this.wakeups.claim(shard, consumer, claimIdleMs, free)) void this.handleEntry(entry);
      }
      for (const entry of await this.wakeups.heldBy(shard, consumer, claimIdleMs, SWEEP_BATCH)) {
        if (entry.sessionId === null) await this.wakeups.ack(shard, entry.entryId);
        else if (!this.active.has(entry.sessionId) && !this.retrying.has(entry.sessionId)) void this.handleEntry(entry);
      }
    }
  }

  private shards(): number[] {
    return this.readers.flatMap((reader) => reader.shards);
  }

  private heartbeatMs(): number {
    // Outlives a few sweeps, and a stalled event loop as long as the turn lock does.
    return Math.max(3 * this.opts.sweepIntervalMs, this.opts.lockTtlMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweeper) clearInterval(this.sweeper);
    for (const reader of this.readers) reader.connection.disconnect();
    await this.loop?.catch(() => undefined);
    await Promise.allSettled(this.active.values());
  }
}
