/**
 * How many event streams (SSE) an organization holds open at once, counted across every API process: a
 * stream takes a place before its first byte (`open-stream-1.lua`) and gives it back when it closes.
 * A place is a lease its process renews, so a process that dies without closing its streams frees
 * their places when the leases end. Without this bound, one organization's streams could take every
 * socket and every byte of memory the API processes have.
 */
import { AppError, unavailable } from "../errors.js";
import { newIdSeed } from "../ids.js";
import type { Logger } from "../log.js";
import { runScript, type RedisClient } from "./client.js";
import type { Keys } from "./keys.js";

/** How long a place outlives its process's last renewal, by default. */
export const STREAM_LEASE_MS = 30_000;
/** What a refusal asks the client to wait: a place comes free whenever any stream of the organization closes. */
const RETRY_AFTER_SECONDS = 5;

export class OpenStreams {
  /** This process's places: organization → its lease ids. */
  private readonly held = new Map<string, Set<string>>();
  private renewal: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    /** Open streams an organization may hold at once. */
    private readonly places: number,
    private readonly log: Logger,
    private readonly leaseMs = STREAM_LEASE_MS,
  ) {}

  /**
   * Takes one of the organization's places, or throws `rate_limited` (all taken) or `unavailable`
   * (Redis cannot count them). The function returned gives the place back; calling it again does nothing.
   */
  async open(orgId: string): Promise<() => void> {
    const lease = newIdSeed();
    let reply;
    try {
      reply = (await runScript(this.redis, "openStream", [this.keys.openStreams(orgId)], [this.places, lease, Date.now(), this.leaseMs])) as [number, number];
    } catch (err) {
      throw unavailable("the organization's open event streams cannot be counted; retry with exponential backoff", err);
    }
    if (reply[0] === 0) {
      throw new AppError("rate_limited", `this organization has ${this.places} event streams open, the most it may hold at once; close one before opening another`, {
        rateLimit: { limit: this.places, remaining: 0, resetAfterSeconds: RETRY_AFTER_SECONDS, periodSeconds: Math.ceil(this.leaseMs / 1000) },
        ceiling: "streams",
      });
    }
    const leases = this.held.get(orgId) ?? new Set<string>();
    this.held.set(orgId, leases.add(lease));
    // Three renewals a lease: one late or failed renewal does not end it.
    this.renewal ??= setInterval(() => void this.renew(), this.leaseMs / 3).unref();
    return () => this.release(orgId, lease);
  }

  /** Gives back every place this process holds (at shutdown); a failure leaves them to their leases' end. */
  async close(): Promise<void> {
    const releases = [...this.held].map(([orgId, leases]) => this.redis.zrem(this.keys.openStreams(orgId), ...leases));
    this.held.clear();
    this.stopRenewal();
    await Promise.allSettled(releases);
  }

  private release(orgId: string, lease: string): void {
    const leases = this.held.get(orgId);
    if (!leases?.delete(lease)) return;
    if (leases.size === 0) this.held.delete(orgId);
    if (this.held.size === 0) this.stopRenewal();
    this.redis.zrem(this.keys.openStreams(orgId), lease).catch((err: unknown) => this.log.debug("an event stream's place was not given back; its lease ends it", { err, orgId }));
  }

  /**
   * Moves the end of every held lease forward, one command per organization. A lease that had ended (a
   * renewal missed, Redis restarted) is added back: the stream is still open, so it counts.
   */
  private async renew(): Promise<void> {
    const ends = Date.now() + this.leaseMs;
    await Promise.all(
      [...this.held].map(async ([orgId, leases]) => {
        const key = this.keys.openStreams(orgId);
        try {
          await this.redis.zadd(key, ...[...leases].flatMap((lease) => [ends, lease]));
          await this.redis.pexpire(key, this.leaseMs);
        } catch (err) {
          this.log.warn("event stream places could not be renewed; retrying at the next renewal", { err, orgId, streams: leases.size });
        }
      }),
    );
  }

  private stopRenewal(): void {
    if (!this.renewal) return;
    clearInterval(this.renewal);
    this.renewal = null;
  }
}
