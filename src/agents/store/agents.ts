/**
 * Agents and their immutable versions.
 *
 * The commit point of a new version is its insert into `agent_versions`: the unique index on
 * (agentId, version) lets exactly one writer take each number, so concurrent writers cannot both win
 * and no update is lost. A conditional update of the agent document would not do: FerretDB v1 applies
 * it as read, modify, write of the whole document, and two of them can both succeed. The agent
 * document then points at the newest version (`current`, embedded for one-query reads); that pointer
 * only moves forward, and a writer that finds its number taken moves it forward first, which also
 * repairs a writer that died between the two steps. Every update of an agent document takes the
 * record's turn (`RecordTurns`): on FerretDB two at once could each write the whole document.
 *
 * Lookups name one document by `_id` (the one filter FerretDB v1 pushes down; see docs/decisions/storage-and-ferretdb.md,
 * issue 8): an agent of another organization reads as absent, and a version's id is derived from its
 * agent and number. Checking the organization before a write is safe: it never changes, and ids are
 * never reused.
 */
import type { Collection, Db } from "mongodb";
import { isDuplicateKey } from "../../mongo/mongo.js";
import type { agentsListQuerySchema } from "../../../schemas/agents-list-query.js";
import type { FromSchemas } from "../../../schemas/index.js";
import { callableAgentsOf, type AgentConfig, type Metadata, type RateLimits, type ToolConfig } from "../domain/agent-config.js";
import { newId } from "../../ids.js";
import { decode, encode } from "../../mongo/caller-json.js";
import type { RecordTurns } from "../../mongo/record-turns.js";

/** An agent's status: the values the list's `status` filter accepts. */
export type AgentStatus = NonNullable<FromSchemas<typeof agentsListQuerySchema>["status"]>;

export interface VersionDoc extends AgentConfig {
  _id: string;
  agentId: string;
  orgId: string;
  version: number;
  createdAt: Date;
  /** The MCP installation that published this version, so a retry of it recognises its own work; never shown. */
  publishedBy?: string;
  /** The revision of the owning deployment's settings this version was published from (deployment agents); never shown. */
  deploymentRevision?: number;
}

/** What a version records of who published it (beyond its configuration). */
export interface VersionMark {
  publishedBy?: string;
  deploymentRevision?: number;
}

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
    callableAgents: callableAgentsOf(v),
    metadata: v.metadata,
  };
}

export interface AgentDoc {
  _id: string;
  orgId: string;
  status: AgentStatus;
  rateLimits: RateLimits;
  /** Spend limit in USD for each subject across its sessions with this agent; absent or null for none. */
  subjectBudgetUsd?: number | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
  current: VersionDoc;
  /** The deployment that owns this agent (deployments interface); its sessions are the deployment's threads. */
  deploymentId?: string;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/**
 * The stored form of a version: caller-chosen objects (metadata, custom tools' input_schema) as JSON
 * text (see caller-json.ts). The TypeScript type stays the domain's; only these fields differ on disk.
 */
function storeTools(tools: ToolConfig[]): ToolConfig[] {
  return tools.map((t) => (t.type === "custom_tool" ? { ...t, input_schema: encode(t.input_schema) as unknown as Record<string, unknown> } : t));
}

function loadTools(tools: ToolConfig[]): ToolConfig[] {
  return tools.map((t) => (t.type === "custom_tool" ? { ...t, input_schema: decode(t.input_schema) } : t));
}

function storeVersion(v: VersionDoc): VersionDoc {
  return {
    ...v,
    metadata: encode(v.metadata) as unknown as Metadata,
    tools: storeTools(v.tools),
    roles: v.roles.map((r) => ({ ...r, tools: storeTools(r.tools) })),
  };
}

function loadVersion(v: VersionDoc): VersionDoc {
  return { ...v, metadata: decode(v.metadata), tools: loadTools(v.tools), roles: v.roles.map((r) => ({ ...r, tools: loadTools(r.tools) })) };
}

function loadAgent(a: AgentDoc | null): AgentDoc | null {
  return a && { ...a, current: loadVersion(a.current) };
}

/** A version's id, known from its agent and number (versions published before this rule have random ids). */
export function versionId(agentId: string, version: number): string {
  return `ver_${agentId.replace(/^agt_/, "")}_${version}`;
}

export type PublishResult = { ok: true; agent: AgentDoc } | { ok: false; reason: "not_found" } | { ok: false; reason: "conflict"; currentVersion: number };

export class AgentStore {
  private readonly agents: Collection<AgentDoc>;
  private readonly versions: Collection<VersionDoc>;

  constructor(
    db: Db,
    private readonly turns: RecordTurns,
  ) {
    this.agents = db.collection<AgentDoc>("agents");
    this.versions = db.collection<VersionDoc>("agent_versions");
  }

  private newVersion(orgId: string, agentId: string, version: number, config: AgentConfig, at: Date, mark: VersionMark = {}): VersionDoc {
    const { publishedBy, deploymentRevision } = mark;
    return {
      _id: versionId(agentId, version),
      agentId,
      orgId,
      version,
      createdAt: at,
      ...config,
      ...(publishedBy ? { publishedBy } : {}),
      ...(deploymentRevision !== undefined ? { deploymentRevision } : {}),
    };
  }

  /**
   * `owner`: a deployment creating its agent under an id it chose (so a retried provisioning finds it),
   * from its settings' `revision`. `chosen`: an id chosen beforehand (an Idempotency-Key's).
   */
  async create(
    orgId: string,
    config: AgentConfig,
    rateLimits: RateLimits,
    owner?: { id: string; deploymentId: string; revision: number },
    chosen?: string,
  ): Promise<AgentDoc> {
    const now = new Date();
    const id = owner?.id ?? chosen ?? newId("agt");
    const current = this.newVersion(orgId, id, 1, config, now, owner ? { deploymentRevision: owner.revision } : {});
    const doc: AgentDoc = {
      _id: id,
      orgId,
      status: "active",
      rateLimits,
      createdAt: now,
      updatedAt: now,
      version: 1,
      current,
      ...(owner ? { deploymentId: owner.deploymentId } : {}),
    };
    // Version first: every version an agent document points at is already recorded. Under an id chosen
    // beforehand the version may be an earlier attempt's, which died before the agent's write: the same config.
    try {
      await this.versions.insertOne(storeVersion(current));
    } catch (err) {
      if (!(isDuplicateKey(err) && (owner || chosen))) throw err;
    }
    await this.agents.insertOne({ ...doc, current: storeVersion(current) });
    return doc;
  }

  async get(orgId: string, id: string): Promise<AgentDoc | null> {
    const agent = loadAgent(await this.agents.findOne({ _id: id }));
    return agent?.orgId === orgId ? agent : null;
  }

  async list(orgId: string, opts: { limit: number; offset: number; status?: AgentStatus }): Promise<Page<AgentDoc>> {
    const filter = opts.status ? { orgId, status: opts.status } : { orgId };
    const docs = await this.agents
      .find(filter)
      .sort({ createdAt: -1, _id: -1 })
      .skip(opts.offset)
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit).map((d) => loadAgent(d)!), hasMore: docs.length > opts.limit };
  }

  /**
   * Publishes `config` as the version after `read`, the state the caller built it from; refused when
   * another writer published that number first. `rateLimits`, when given, are set too; `mark` records
   * the MCP installation or the deployment revision the version comes from.
   */
  async publish(read: AgentDoc, config: AgentConfig, rateLimits?: RateLimits, mark?: VersionMark): Promise<PublishResult> {
    const next = this.newVersion(read.orgId, read._id, read.version + 1, config, new Date(), mark);
    try {
      await this.versions.insertOne(storeVersion(next));
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return this.refused(read);
    }
    let agent = await this.pointAt(next);
    if (agent && rateLimits) agent = await this.update(read._id, { rateLimits });
    if (!agent) return { ok: false, reason: "not_found" };
    // A later writer may already have built on this version; the answer still shows the one published here.
    return { ok: true, agent: { ...agent, version: next.version, current: next, updatedAt: next.createdAt } };
  }

  /** Another writer took the number: point the agent at the newest version (that writer may have died first). */
  private async refused(read: AgentDoc): Promise<PublishResult> {
    const stored = await this.versions.find({ agentId: read._id, orgId: read.orgId }).sort({ version: -1 }).limit(1).next();
    const newest = stored && loadVersion(stored);
    const agent = newest && (await this.pointAt(newest));
    if (!newest || !agent) return { ok: false, reason: "not_found" };
    return { ok: false, reason: "conflict", currentVersion: Math.max(agent.version, newest.version) };
  }

  /**
   * Moves the agent's pointer forward to `version` (never back) and returns the agent as it then is.
   * The one guarded filter left (FerretDB reads the agents to apply it): it runs once per publish, and
   * the pointer and the document it embeds cannot be one `$max`.
   */
  private async pointAt(version: VersionDoc): Promise<AgentDoc | null> {
    const moved = await this.turns(version.agentId, () =>
      this.agents.findOneAndUpdate(
        { _id: version.agentId, version: { $lt: version.version } },
        { $set: { version: version.version, current: storeVersion(version), updatedAt: version.createdAt } },
        { returnDocument: "after" },
      ),
    );
    return moved ? loadAgent(moved) : this.get(version.orgId, version.agentId);
  }

  /** Sets fields of an agent document in the record's turn; the agent as it then is. */
  private async update(id: string, set: Record<string, unknown>): Promise<AgentDoc | null> {
    return loadAgent(await this.turns(id, () => this.agents.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: "after" })));
  }

  async setRateLimits(orgId: string, id: string, limits: Partial<RateLimits>): Promise<AgentDoc | null> {
    if (!(await this.get(orgId, id))) return null;
    const set: Record<string, unknown> = { updatedAt: new Date() };
    for (const [k, v] of Object.entries(limits)) set[`rateLimits.${k}`] = v;
    return this.update(id, set);
  }

  async setSubjectBudget(orgId: string, id: string, limitUsd: number | null): Promise<AgentDoc | null> {
    if (!(await this.get(orgId, id))) return null;
    return this.update(id, { subjectBudgetUsd: limitUsd, updatedAt: new Date() });
  }

  /** Idempotent: an archived agent is returned unchanged (two concurrent archives both write the same status). */
  async archive(orgId: string, id: string): Promise<AgentDoc | null> {
    const agent = await this.get(orgId, id);
    if (!agent || agent.status === "archived") return agent;
    return this.update(id, { status: "archived", updatedAt: new Date() });
  }

  /**
   * Versions first, the agent last: a delete cut short leaves the agent, and deleting it again finishes
   * the work; the other order would leave versions that nothing points at, and nothing finds again.
   */
  async delete(orgId: string, id: string): Promise<boolean> {
    if (!(await this.get(orgId, id))) return false;
    await this.versions.deleteMany({ agentId: id, orgId });
    const res = await this.agents.deleteOne({ _id: id });
    return res.deletedCount === 1;
  }

  async listVersions(agent: AgentDoc, opts: { limit: number; offset: number }): Promise<Page<VersionDoc>> {
    const docs = await this.versions
      .find({ agentId: agent._id, orgId: agent.orgId })
      .sort({ version: -1 })
      .skip(opts.offset)
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit).map(loadVersion), hasMore: docs.length > opts.limit };
  }

  /** For workers: the version a session recorded, by agent id alone. */
  async getVersionById(agentId: string, version: number): Promise<VersionDoc | null> {
    const found = (await this.versions.findOne({ _id: versionId(agentId, version) })) ?? (await this.versions.findOne({ agentId, version }));
    return found && loadVersion(found);
  }

  /** Versions up to the agent's are all stored, so only those can be older ones with random ids. */
  async getVersion(agent: AgentDoc, version: number): Promise<VersionDoc | null> {
    if (version === agent.version) return agent.current;
    let found = await this.versions.findOne({ _id: versionId(agent._id, version) });
    if (!found && version < agent.version) found = await this.versions.findOne({ agentId: agent._id, version });
    return found && loadVersion(found);
  }
}
