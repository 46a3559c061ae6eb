/**
 * Agents and their immutable versions.
 *
 * The agent document is the commit point: publishing a version is one conditional update
 * `{_id, version: N} → N+1` that also embeds the new version, so concurrent writers cannot both win
 * and no update is lost. The version is then recorded in `agent_versions` (insert-if-absent); a writer
 * that died between the two steps is repaired by the next reader or writer, which records the embedded
 * latest version again.
 */

/** The configuration part of a version document. */
export function configOf(v: VersionDoc): AgentConfig {
  return {
    name: v.name,
    modelName: v.modelName,
    systemPrompt: v.systemPrompt,
    skills: v.skills,
    tools: v.tools,
    roles: v.roles,
    mcpServers: v.mcpServers,
    metadata: v.metadata,
  };
}
import { MongoServerError, type Collection, type Db } from "mongodb";
import type { AgentConfig, RateLimits } from "../domain/agent-config.js";
import { newId } from "../ids.js";

export type AgentStatus = "active" | "archived";

export interface VersionDoc extends AgentConfig {
  _id: string;
  agentId: string;
  orgId: string;
  version: number;
  createdAt: Date;
}

export interface AgentDoc {
  _id: string;
  orgId: string;
  status: AgentStatus;
  rateLimits: RateLimits;
  createdAt: Date;
  updatedAt: Date;
  version: number;
  current: VersionDoc;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}

export type PublishResult = { ok: true; agent: AgentDoc } | { ok: false; reason: "not_found" } | { ok: false; reason: "conflict"; currentVersion: number };

export class AgentStore {
  private readonly agents: Collection<AgentDoc>;
  private readonly versions: Collection<VersionDoc>;

  constructor(db: Db) {
    this.agents = db.collection<AgentDoc>("agents");
    this.versions = db.collection<VersionDoc>("agent_versions");
  }

  private newVersion(orgId: string, agentId: string, version: number, config: AgentConfig, at: Date): VersionDoc {
    return { _id: newId("ver"), agentId, orgId, version, createdAt: at, ...config };
  }

  /**
   * Insert-if-absent keyed by (agentId, version) (a unique index): idempotent, so repairs and retries
   * are safe. A plain insert, not an upsert with `$setOnInsert`: FerretDB v1 drops empty arrays
   * (`skills: []`, `roles: []`) from a `$setOnInsert` document.
   */
  private async record(version: VersionDoc): Promise<void> {
    try {
      await this.versions.insertOne(version);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  async create(orgId: string, config: AgentConfig, rateLimits: RateLimits): Promise<AgentDoc> {
    const now = new Date();
    const id = newId("agt");
    const current = this.newVersion(orgId, id, 1, config, now);
    const doc: AgentDoc = { _id: id, orgId, status: "active", rateLimits, createdAt: now, updatedAt: now, version: 1, current };
    await this.agents.insertOne(doc);
    await this.record(current);
    return doc;
  }

  async get(orgId: string, id: string): Promise<AgentDoc | null> {
    return this.agents.findOne({ _id: id, orgId });
  }

  async list(orgId: string, opts: { limit: number; offset: number; status?: AgentStatus }): Promise<Page<AgentDoc>> {
    const filter = opts.status ? { orgId, status: opts.status } : { orgId };
    const docs = await this.agents
      .find(filter)
      .sort({ createdAt: -1, _id: -1 })
      .skip(opts.offset)
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit), hasMore: docs.length > opts.limit };
  }

  /**
   * Publishes `config` as version `expectedVersion + 1`, only if the agent is still at `expectedVersion`.
   * `read` is the state the caller built `config` from; its version is recorded first, in case the writer
   * that published it died before recording it.
   */
  async publish(read: AgentDoc, expectedVersion: number, config: AgentConfig, rateLimits?: RateLimits): Promise<PublishResult> {
    const { orgId, _id: id } = read;
    await this.record(read.current);
    const now = new Date();
    const next = this.newVersion(orgId, id, expectedVersion + 1, config, now);
    const updated = await this.agents.findOneAndUpdate(
      { _id: id, orgId, version: expectedVersion },
      { $set: { version: next.version, current: next, updatedAt: now, ...(rateLimits ? { rateLimits } : {}) } },
      { returnDocument: "after" },
    );
    if (!updated) {
      const existing = await this.get(orgId, id);
      if (!existing) return { ok: false, reason: "not_found" };
      return { ok: false, reason: "conflict", currentVersion: existing.version };
    }
    await this.record(next);
    return { ok: true, agent: updated };
  }

  async setRateLimits(orgId: string, id: string, limits: Partial<RateLimits>): Promise<AgentDoc | null> {
    const set: Record<string, unknown> = { updatedAt: new Date() };
    for (const [k, v] of Object.entries(limits)) set[`rateLimits.${k}`] = v;
    return this.agents.findOneAndUpdate({ _id: id, orgId }, { $set: set }, { returnDocument: "after" });
  }

  /** Idempotent: an archived agent is returned unchanged. */
  async archive(orgId: string, id: string): Promise<AgentDoc | null> {
    const updated = await this.agents.findOneAndUpdate(
      { _id: id, orgId, status: "active" },
      { $set: { status: "archived", updatedAt: new Date() } },
      { returnDocument: "after" },
    );
    return updated ?? this.get(orgId, id);
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    const res = await this.agents.deleteOne({ _id: id, orgId });
    if (res.deletedCount === 0) return false;
    await this.versions.deleteMany({ agentId: id, orgId });
    return true;
  }

  async listVersions(agent: AgentDoc, opts: { limit: number; offset: number }): Promise<Page<VersionDoc>> {
    await this.record(agent.current);
    const docs = await this.versions
      .find({ agentId: agent._id, orgId: agent.orgId })
      .sort({ version: -1 })
      .skip(opts.offset)
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit), hasMore: docs.length > opts.limit };
  }

  async getVersion(agent: AgentDoc, version: number): Promise<VersionDoc | null> {
    if (version === agent.version) return agent.current;
    return this.versions.findOne({ agentId: agent._id, orgId: agent.orgId, version });
  }
}
