/**
 * Idempotency-Key records in Redis, the store of request replay (`request-replay.ts`): one hash per key
 * and organization, named by the key's hash, holding the request's fingerprint, its lease while it runs
 * and its answer once kept. Atomic steps: `idempotency-begin-1.lua` and `idempotency-settle-1.lua`.
 */
import { randomBytes } from "node:crypto";
import { runScript, type ScriptReply, type RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";
import { newIdSeed } from "../../ids.js";

export type Begun =
  /** `seed`: the id seed kept with the key (`ids.ts` seededId); `retaken`: an earlier attempt's lease lapsed, so it may have done its work. */
  | { kind: "new"; token: string; seed: string; retaken: boolean }
  | { kind: "done"; status: number; body: string | null }
  | { kind: "running" }
  | { kind: "mismatch" };

/** A key's record: the organization's, named by the key's hash (`fingerprint.ts` digest). */
export interface KeyRecord {
  orgId: string;
  keyHash: string;
}

export class IdempotencyKeys {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  private name(record: KeyRecord): string {
    return this.keys.idempotency(record.orgId, record.keyHash);
  }

  /**
   * Takes the key for the request with this fingerprint, for `leaseMs`, the record living `keptMs`; or
   * says what holds it. A lease that lapsed (its holder died) is taken over.
   */
  async begin(record: KeyRecord, fingerprint: string, leaseMs: number, keptMs: number): Promise<Begun> {
    const token = randomBytes(12).toString("base64url");
    const reply = (await runScript(this.redis, "idempotencyBegin", [this.name(record)], [fingerprint, token, leaseMs, newIdSeed(), keptMs])) as ScriptReply[];
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
  async keep(record: KeyRecord, token: string, status: number, body: string | null, ttlMs: number): Promise<void> {
    await runScript(this.redis, "idempotencySettle", [this.name(record)], [token, "keep", status, body ?? "", ttlMs]);
  }

  /** Frees the key the request holding `token` took: it failed, and sending it again is safe. */
  async free(record: KeyRecord, token: string): Promise<void> {
    await runScript(this.redis, "idempotencySettle", [this.name(record)], [token, "free"]);
  }
}
