/**
 * How many event streams (SSE) an organization holds open at once, counted across every API process: a
 * stream takes a place before its first byte (`open-stream-1.lua`) and gives it back when it closes.
 * A place is a lease its process renews (`renew-streams-1.lua`), so a process that dies without closing
 * its streams frees their places when the leases end. Without this bound, one organization's streams
 * could take every socket and every byte of memory the API processes have.
 */
import { AppError, unavailable } from "../../errors.js";
import { newIdSeed } from "../../ids.js";
import type { Logger } from "../../log.js";
import { runScript, type RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";

/** How long a place outlives its process's last renewal, by default. */
export const STREAM_LEASE_MS = 30_000;
/**
 * What a refusal asks the client to wait: a place comes free whenever a stream of the organization
 * closes (a dead process's, only when its lease ends: up to a lease length).
 */
const RETRY_AFTER_SECONDS = 5;
/** Leases renewed by one script call: a bounded number of arguments, however many streams are open. */
const RENEWAL_CHUNK = 500;

export class OpenStreams {
  /** This process's places: organization → its lease ids. */
  private readonly held = new Map<string, Set<string>>();
  private renewal: NodeJS.Timeout | null = null;
  private closed = false;

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
   * (Redis cannot count them, or the process is shutting down). The function returned gives the place
   * back; calling it again does nothing.
   */
  async open(orgId: string): Promise<() => void> {
    if (this.closed) throw unavailable("this process is shutting down; open the stream again");
    const lease = newIdSeed();
    let reply;
    try {
      reply = (await runScript(this.redis, "openStream", [this.keys.openStreams(orgId)], [this.places, lease, this.leaseMs])) as [number, number];
    } catch (err) {
      throw unavailable("the organization's open event streams cannot be counted; retry with exponential backoff", err);
    }
    if (reply[0] === 0) {
      throw new AppError(
        "rate_limited",
        `this organization has ${this.places} event streams open, the most it may hold at once; close one before opening another`,
        {
          rateLimit: { limit: this.places, remaining: 0, resetAfterSeconds: RETRY_AFTER_SECONDS, periodSeconds: Math.ceil(this.leaseMs / 1000) },
          ceiling: "streams",
        },
      );
    }
    // Shut down while the place was being taken: nobody would renew it or give it back.
    if (this.closed) {
      this.zrem(orgId, [lease]);
      throw unavailable("this process is shutting down; open the stream again");
    }
    const leases = this.held.get(orgId) ?? new Set<string>();
    this.held.set(orgId, leases.add(lease));
    // Three renewals a lease: one late or failed renewal does not end it.
    this.renewal ??= setInterval(() => void this.renew(), this.leaseMs / 3).unref();
    return () => this.release(orgId, lease);
  }

  /** Gives back every place this process holds, and takes no more (at shutdown); a failure leaves them to their leases' end. */
  async close(): Promise<void> {
    this.closed = true;
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
    this.zrem(orgId, [lease]);
  }

  private zrem(orgId: string, leases: string[]): void {
    this.redis
      .zrem(this.keys.openStreams(orgId), ...leases)
      .catch((err: unknown) => this.log.debug("an event stream's place was not given back; its lease ends it", { err, orgId }));
  }

  /**
   * Moves the end of every held lease forward. The calls are sent at once (before any await), so a
   * release that follows reaches Redis after the renewal and is never undone by it.
   */
  private async renew(): Promise<void> {
    const calls: Promise<unknown>[] = [];
    for (const [orgId, leases] of this.held) {
      const ids = [...leases];
      for (let i = 0; i < ids.length; i += RENEWAL_CHUNK) {
        const chunk = ids.slice(i, i + RENEWAL_CHUNK);
        calls.push(
          runScript(this.redis, "renewStreams", [this.keys.openStreams(orgId)], [this.leaseMs, ...chunk]).catch((err: unknown) =>
            this.log.warn("event stream places could not be renewed; retrying at the next renewal", { err, orgId, streams: chunk.length }),
          ),
        );
      }
    }
    await Promise.all(calls);
  }

  private stopRenewal(): void {
    if (!this.renewal) return;
    clearInterval(this.renewal);
    this.renewal = null;
  }
}
