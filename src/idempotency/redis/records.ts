/**
 * Idempotency-Key records: the first request under a key runs and its answer is kept for a day; a retry
 * of the same request gets that answer; the key is freed when the request fails. Atomic steps:
 * `idempotency-begin-1.lua` and `idempotency-settle-1.lua`.
 */
import { randomBytes } from "node:crypto";
import { runScript, type ScriptReply, type RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";
import { digest, fingerprintOf, onceOf, type Once } from "./once-marks.js";
import { newIdSeed } from "../../ids.js";

export type Begun =
  /** `seed`: the id seed kept with the key (`ids.ts` seededId); `retaken`: an earlier attempt's lease lapsed, so it may have done its work. */
  | { kind: "new"; token: string; seed: string; retaken: boolean }
  | { kind: "done"; status: number; body: string | null }
  | { kind: "running" }
  | { kind: "mismatch" };

export class IdempotencyKeys {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  private record(orgId: string, key: string): string {
    return this.keys.idempotency(orgId, digest(key));
  }

  /** The key and the request as a handler commits them with its own write (`once-marks.ts`). */
  once(orgId: string, key: string, request: string, begun: { seed: string; retaken: boolean }): Once {
    return onceOf(orgId, key, request, begun);
  }

  /**
   * Takes `key` for a request whose method, path and body make `request`, for `leaseMs`, the record living
   * `keptMs`; or says what holds it. A lease that lapsed (its holder died) is taken over.
   */
  async begin(orgId: string, key: string, request: string, leaseMs: number, keptMs: number): Promise<Begun> {
    const token = randomBytes(12).toString("base64url");
    const args = [fingerprintOf(orgId, key, request), token, leaseMs, newIdSeed(), keptMs];
    const reply = (await runScript(this.redis, "idempotencyBegin", [this.record(orgId, key)], args)) as ScriptReply[];
    switch (reply[0]) {
      case "new":
        return { kind: "new", token, seed: String(reply[1]), retaken: Number(reply[2]) === 1 };
      case "done":
        return { kind: "done", status: Number(reply[1]), body: typeof reply[2] === "string" ? reply[2] : null };
      case "mismatch":
        return { kind: "mismatch" };
      default:
        return { kind: "running" };
    }
  }

  /** Keeps the answer of the request holding `token` for `ttlMs` (`body` null: too large to keep; its status alone is). */
  async keep(orgId: string, key: string, token: string, status: number, body: string | null, ttlMs: number): Promise<void> {
    await runScript(this.redis, "idempotencySettle", [this.record(orgId, key)], [token, "keep", status, body ?? "", ttlMs]);
  }

  /** Frees the key the request holding `token` took: it failed, and sending it again is safe. */
  async free(orgId: string, key: string, token: string): Promise<void> {
    await runScript(this.redis, "idempotencySettle", [this.record(orgId, key)], [token, "free"]);
  }
}
