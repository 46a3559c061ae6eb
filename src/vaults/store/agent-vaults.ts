/**
 * The vaults attached to agents: the agent document's `vaultIds`, changed only here. The agent's
 * `updatedAt` is the whole set's concurrency token (`expectedUpdatedAt`). The commit point of a
 * replacement is an insert keyed by (agent, token) into `agent_vault_claims`: exactly one writer can
 * take a token, on MongoDB and on FerretDB alike (whose conditional updates are read, modify, write,
 * so two guarded updates could both succeed). The agent's `updatedAt` then moves strictly forward.
 */
import type { Collection, Db } from "mongodb";
import { isDuplicateKey } from "../../mongo/mongo.js";
import type { OrgChanges } from "../../mongo/org-changes.js";

interface AgentVaults {
  _id: string;
  orgId: string;
  vaultIds?: string[];
  updatedAt: Date;
}

export interface Attachments {
  vaultIds: string[];
  updatedAt: Date;
}

export class AgentVaultStore {
  private readonly agents: Collection<AgentVaults>;
  private readonly claims: Collection<{ _id: string; at: Date }>;

  constructor(
    db: Db,
    private readonly changes: OrgChanges,
  ) {
    this.agents = db.collection<AgentVaults>("agents");
    this.claims = db.collection("agent_vault_claims");
  }

  /** The agent's attached vaults and its `updatedAt`; null for no such agent of the organization. */
  async attached(orgId: string, agentId: string): Promise<Attachments | null> {
    const doc = await this.agents.findOne({ _id: agentId }, { projection: { orgId: 1, vaultIds: 1, updatedAt: 1 } });
    return doc?.orgId === orgId ? { vaultIds: doc.vaultIds ?? [], updatedAt: doc.updatedAt } : null;
  }

  /**
   * Replaces the set if `expected` is the agent's `updatedAt` as the caller read it (`current`): the new
   * attachments, or "stale". Another writer of that token since the read loses or wins at the claim.
   */
  async replace(orgId: string, agentId: string, current: Attachments, expected: Date, vaultIds: string[]): Promise<Attachments | "stale" | null> {
    if (current.updatedAt.getTime() !== expected.getTime()) return "stale";
    try {
      await this.claims.insertOne({ _id: `${agentId}@${expected.toISOString()}`, at: new Date() });
    } catch (err) {
      if (isDuplicateKey(err)) return "stale";
      throw err;
    }
    const next = new Date(Math.max(Date.now(), expected.getTime() + 1));
    await this.agents.updateOne({ _id: agentId }, { $set: { vaultIds }, $max: { updatedAt: next } });
    await this.changes.changed(orgId);
    return this.attached(orgId, agentId);
  }

  /** Removes a vault from every agent of the organization it is attached to. */
  async detachVault(orgId: string, vaultId: string): Promise<void> {
    await this.agents.updateMany({ orgId, vaultIds: vaultId }, { $pull: { vaultIds: vaultId }, $max: { updatedAt: new Date() } });
    await this.changes.changed(orgId);
  }
}
