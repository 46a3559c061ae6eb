/**
 * The idempotency records of MCP installations, one per (organization, agent, idempotency key). The
 * commit point of a key is the insert of its record (unique `_id`): of concurrent first requests with
 * one key exactly one inserts, and the others read what it inserted, on MongoDB and on FerretDB alike.
 *
 * A record holds the installation's plan (the ids it will create, chosen once so every attempt creates
 * the same objects) and, once complete, its answer. It never holds the request: only a salted hash
 * (HMAC-SHA-256 under a random per-record salt) of its canonical JSON, for telling a retry from another
 * request under the same key; the bearer token is part of the hashed text and of nothing stored.
 * The answer holds ids, numbers and dates, nothing the caller wrote freely, so it is stored as it is.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Collection, Db } from "mongodb";
import { isDuplicateKey } from "../../mongo/mongo.js";
import type { McpServer, RateLimits } from "../../agents/domain/agent-config.js";
import type { InstallationAuthType } from "../domain/mcp-installation.js";
import type { AgentStatus } from "../../agents/store/agents.js";

/** What an installation will create, fixed when its key is first claimed. */
export interface InstallationPlan {
  /** Marks the version the installation publishes, so a later attempt recognises it as its own. */
  id: string;
  /** The vault a `static_bearer` installation without `vaultId` creates. */
  newVaultId: string | null;
  /** The credential a `static_bearer` installation creates. */
  credentialId: string | null;
}

/** The first answer: enough to give it again (versions are immutable, so the version is named, not copied). */
export interface InstallationAnswer {
  agent: { status: AgentStatus; rateLimits: RateLimits; createdAt: Date; updatedAt: Date; version: number };
  version: number;
  mcpServer: McpServer;
  authentication: { type: InstallationAuthType; vaultId: string | null; credentialId: string | null };
}

interface InstallationRecord {
  _id: string;
  orgId: string;
  agentId: string;
  salt: string;
  requestHash: string;
  plan: InstallationPlan;
  answer: InstallationAnswer | null;
  createdAt: Date;
}

export type Claim = { kind: "claimed"; recordId: string; plan: InstallationPlan; answer: InstallationAnswer | null } | { kind: "mismatch" };

/** JSON with every object's keys sorted: one text per request, whatever order its fields came in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

export class McpInstallationStore {
  private readonly records: Collection<InstallationRecord>;

  /**
   * `pepper`: a key of the service's (derived from the vault key), so that the stored hash of a request
   * holding a token cannot be checked against a guessed token by someone who can only read the
   * database. Without it (no vault key, so no token can be installed) the record's salt alone keys it.
   */
  constructor(
    db: Db,
    private readonly pepper: Buffer | undefined,
  ) {
    this.records = db.collection<InstallationRecord>("mcp_installations");
  }

  private hashOf(salt: string, request: unknown): string {
    return createHmac("sha256", this.pepper ?? Buffer.from(salt, "base64"))
      .update(salt)
      .update(canonical(request))
      .digest("base64");
  }

  /**
   * Claims `key` for `request` with the plan `newPlan` makes, or finds the record an earlier request
   * with the key left: its plan (and answer, once complete) when it was this request, "mismatch" when
   * it was another one.
   */
  async claim(orgId: string, agentId: string, key: string, request: unknown, newPlan: () => InstallationPlan): Promise<Claim> {
    // The key is the caller's text: hashed, it has a fixed length and never becomes part of an id as written.
    const recordId = `${orgId}/${agentId}/${createHash("sha256").update(key).digest("hex")}`;
    const salt = randomBytes(32).toString("base64");
    const record: InstallationRecord = {
      _id: recordId,
      orgId,
      agentId,
      salt,
      requestHash: this.hashOf(salt, request),
      plan: newPlan(),
      answer: null,
      createdAt: new Date(),
    };
    try {
      await this.records.insertOne(record);
      return { kind: "claimed", recordId, plan: record.plan, answer: null };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const found = await this.records.findOne({ _id: recordId });
    // Removed by expiry in between: a later retry claims the key afresh.
    if (!found) return this.claim(orgId, agentId, key, request, newPlan);
    const same = timingSafeEqual(Buffer.from(this.hashOf(found.salt, request), "base64"), Buffer.from(found.requestHash, "base64"));
    return same ? { kind: "claimed", recordId, plan: found.plan, answer: found.answer } : { kind: "mismatch" };
  }

  /** Records the answer. Attempts that ran together write equal answers, so whichever lands last is as good. */
  async complete(recordId: string, answer: InstallationAnswer): Promise<void> {
    await this.records.updateOne({ _id: recordId }, { $set: { answer } });
  }

  /** Removes the records created before `cutoff` (FerretDB v1 has no TTL index); how many went. */
  async expire(cutoff: Date): Promise<number> {
    return (await this.records.deleteMany({ createdAt: { $lt: cutoff } })).deletedCount;
  }
}
