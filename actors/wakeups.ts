/**
 * The worker side of wake-ups: a consumer in the `workers` group reads the wake-up stream and hands
 * each session to the actor; entries are acknowledged once handled. Entries a dead consumer left
 * unacknowledged are claimed (XAUTOCLAIM) after `claimIdleMs`, and sessions still in the pending set
 * after that long are looked at again: nothing handed to the workers is lost.
 */
import type { Redis } from "ioredis";
import type { Logger } from "../src/log.js";
import { WORKER_GROUP, type Wakeups } from "../src/redis/wakeups.js";
import type { SessionActor } from "./session-actor.js";

export interface WakeupOptions {
  consumer: string;
  concurrency: number;
  claimIdleMs: number;
  sweepIntervalMs: number;
  /** Whether to read the wake-up stream (worker role) or only sweep (scheduler role). */
  consume: boolean;
}

const MAX_RETRIES = 4;
const RETRY_BASE_MS = 250;

type StreamReply = [string, [string, string[]][]][] | null;

export class WakeupConsumer {
  private stopped = false;
  private readonly active = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private sweeper: NodeJS.Timeout | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly blocking: Redis,
    private readonly redis: Redis,
    private readonly wakeups: Wakeups,
    private readonly actor: SessionActor,
    private readonly logger: Logger,
    private readonly opts: WakeupOptions,
  ) {}

  async start(): Promise<void> {
    await this.wakeups.ensureGroup();
    if (this.opts.consume) this.loop = this.read();
    this.sweeper = setInterval(() => void this.sweep(), this.opts.sweepIntervalMs);
  }

  /**
   * One run per session at a time in this process; a wake-up during a run asks for one more. A run
   * that fails (a database blip, say) is retried with backoff; past that the sweeper takes it up.
   */
  private handle(sessionId: string, retry = 0): Promise<void> {
    const running = this.active.get(sessionId);
    if (running) {
      this.again.add(sessionId);
      return running;
    }
    const run = (async () => {
      try {
        do {
          this.again.delete(sessionId);
          await this.actor.process(sessionId);
        } while (this.again.has(sessionId) && !this.stopped);
      } catch (err) {
        this.logger.error("session processing failed", { sessionId, retry, err });
        if (retry < MAX_RETRIES && !this.stopped) {
          setTimeout(() => void this.handle(sessionId, retry + 1), RETRY_BASE_MS * 2 ** retry).unref();
        }
      } finally {
        this.active.delete(sessionId);
      }
    })();
    this.active.set(sessionId, run);
    return run;
  }

  private async handleEntry(entryId: string, fields: string[]): Promise<void> {
    const at = fields.indexOf("session");
    if (at >= 0 && fields[at + 1]) await this.handle(fields[at + 1]!);
    // Stopped mid-way: left unacknowledged, so another worker claims it.
    if (!this.stopped) await this.redis.xack(this.wakeups.keys.wakeups(), WORKER_GROUP, entryId);
  }

  private async read(): Promise<void> {
    while (!this.stopped) {
      if (this.active.size >= this.opts.concurrency) {
        await Promise.race(this.active.values());
        continue;
      }
      let reply: StreamReply;
      try {
        reply = (await this.blocking.xreadgroup(
          "GROUP",
          WORKER_GROUP,
          this.opts.consumer,
          "COUNT",
          Math.max(1, this.opts.concurrency - this.active.size),
          "BLOCK",
          2_000,
          "STREAMS",
          this.wakeups.keys.wakeups(),
          ">",
        )) as StreamReply;
      } catch (err) {
        if (this.stopped) return;
        this.logger.warn("reading wake-ups failed; retrying", { err });
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      for (const [, entries] of reply ?? []) {
        for (const [id, fields] of entries) void this.handleEntry(id, fields);
      }
    }
  }

  private async sweep(): Promise<void> {
    if (this.stopped) return;
    try {
      if (this.opts.consume) {
        const [, claimed] = (await this.redis.xautoclaim(this.wakeups.keys.wakeups(), WORKER_GROUP, this.opts.consumer, this.opts.claimIdleMs, "0-0", "COUNT", 50)) as [
          string,
          [string, string[]][],
        ];
        for (const [id, fields] of claimed) if (fields) void this.handleEntry(id, fields);
      }
      const due = await this.wakeups.due(Date.now() - this.opts.claimIdleMs, 50);
      for (const sessionId of due) void this.handle(sessionId);
    } catch (err) {
      this.logger.warn("wake-up sweep failed", { err });
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.blocking.disconnect();
    await this.loop?.catch(() => undefined);
    await Promise.allSettled(this.active.values());
  }
}
