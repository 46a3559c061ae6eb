/** Agent use cases: the rules of the Agents endpoints over the agent store. */
import {
  applyPatch,
  bodyProblems,
  configFromCreateBody,
  rateLimitsFrom,
  referenceProblems,
  versionLimitProblems,
  type AgentCreateBody,
  type AgentPatchBody,
  type RateLimits,
} from "./domain/agent-config.js";
import { conflict, notFound, validationError } from "../errors.js";
import type { AgentLimitsCache } from "./redis/agent-limits-cache.js";
import type { Budgets } from "../sessions/budgets.js";
import { configOf, type AgentDoc, type AgentStatus, type AgentStore, type Page, type PublishResult, type VersionDoc } from "./store/agents.js";
import { createKept, keptId, type Kept, type Once } from "../idempotency/index.js";

/** What deleting an agent must know about the rest of the system. */
export interface AgentDependents {
  hasSessions(orgId: string, agentId: string): Promise<boolean>;
}

function refuse(problems: string[]): void {
  if (problems.length > 0) throw validationError(problems);
}

/** Create and full replace carry the whole configuration, so every rule is checked on the body alone. */
function refuseFullBody(body: AgentCreateBody): void {
  refuse([...bodyProblems(body), ...referenceProblems(body, body.mcpServers ?? [])]);
}

/** An agent a deployment owns changes only through the deployments interface (its settings are the truth). */
function refuseManaged(agent: AgentDoc): void {
  if (agent.deploymentId) throw conflict(`the agent belongs to deployment ${agent.deploymentId}; change or delete it through the deployments interface`);
}

export class AgentService {
  constructor(
    private readonly store: AgentStore,
    private readonly dependents: AgentDependents,
    private readonly limitsCache: AgentLimitsCache,
    private readonly budgets: Pick<Budgets, "spentBy">,
  ) {}

  /**
   * A version may list as callable only agents of its own organization that accept work (not archived):
   * checked when it is published, on the entries the body submits (a PATCH keeps the others as they were).
   */
  private async refuseCallees(orgId: string, body: Pick<AgentPatchBody, "callableAgents">): Promise<void> {
    const entries = body.callableAgents ?? [];
    const found = await Promise.all(entries.map((c) => this.store.get(orgId, c.agentId)));
    refuse(
      found.flatMap((agent, i) => {
        if (!agent) return [`callableAgents[${i}].agentId: no agent of this organization has this id`];
        return agent.status === "archived" ? [`callableAgents[${i}].agentId: the agent is archived`] : [];
      }),
    );
  }

  async create(orgId: string, body: AgentCreateBody, id?: string): Promise<AgentDoc> {
    refuseFullBody(body);
    await this.refuseCallees(orgId, body);
    return this.store.create(orgId, configFromCreateBody(body), rateLimitsFrom(body.rateLimits), undefined, id);
  }

  /** A create under an Idempotency-Key (`kept-creates.ts`). */
  createKept(orgId: string, body: AgentCreateBody, once?: Once): Promise<Kept<AgentDoc>> {
    return createKept(
      keptId("agt", once),
      (id) => this.store.get(orgId, id),
      (id) => this.create(orgId, body, id),
    );
  }

  list(orgId: string, opts: { limit: number; offset: number; status?: AgentStatus }): Promise<Page<AgentDoc>> {
    return this.store.list(orgId, opts);
  }

  async get(orgId: string, id: string): Promise<AgentDoc> {
    const agent = await this.store.get(orgId, id);
    if (!agent) throw notFound("agent");
    return agent;
  }

  /**
   * Full replace: always a new version. `rateLimits` are set too (they are not versioned), as the body
   * gives them: like every field of the body, one it leaves out takes its default.
   */
  async replace(orgId: string, id: string, body: AgentCreateBody): Promise<AgentDoc> {
    refuseFullBody(body);
    await this.refuseCallees(orgId, body);
    const agent = await this.get(orgId, id);
    refuseManaged(agent);
    const result = this.settle(agent, await this.store.publish(agent, configFromCreateBody(body), rateLimitsFrom(body.rateLimits)));
    await this.limitsCache.invalidate(id);
    return result;
  }

  async patch(orgId: string, id: string, body: AgentPatchBody): Promise<AgentDoc> {
    const { expectedVersion, ...changes } = body;
    if (Object.keys(changes).length === 0) throw validationError("body: must contain at least one field other than expectedVersion");
    refuse(bodyProblems(changes));
    const agent = await this.get(orgId, id);
    refuseManaged(agent);
    if (expectedVersion !== undefined && expectedVersion !== agent.version) {
      throw conflict(`expectedVersion ${expectedVersion} does not match the current version ${agent.version}; refetch the agent and retry`);
    }
    const merged = applyPatch(configOf(agent.current), changes);
    refuse([...referenceProblems(changes, merged.mcpServers), ...versionLimitProblems(merged)]);
    await this.refuseCallees(orgId, changes);
    return this.settle(agent, await this.store.publish(agent, merged));
  }

  private settle(read: AgentDoc, result: PublishResult): AgentDoc {
    if (result.ok) return result.agent;
    if (result.reason === "not_found") throw notFound("agent");
    throw conflict(`the agent changed from version ${read.version} to version ${result.currentVersion} during this update; refetch the agent and retry`);
  }

  async setRateLimits(orgId: string, id: string, limits: Partial<RateLimits>): Promise<AgentDoc> {
    const agent = await this.store.setRateLimits(orgId, id, limits);
    if (!agent) throw notFound("agent");
    await this.limitsCache.invalidate(id);
    return agent;
  }

  async setSubjectBudget(orgId: string, id: string, limitUsd: number | null): Promise<AgentDoc> {
    const agent = await this.store.setSubjectBudget(orgId, id, limitUsd);
    if (!agent) throw notFound("agent");
    await this.limitsCache.invalidate(id);
    return agent;
  }

  async subjectSpend(orgId: string, agentId: string, subjectId: string): Promise<{ spentUsd: number; limitUsd: number | null }> {
    const agent = await this.get(orgId, agentId);
    return { spentUsd: await this.budgets.spentBy({ orgId, agentId, subjectId }), limitUsd: agent.subjectBudgetUsd ?? null };
  }

  async archive(orgId: string, id: string): Promise<AgentDoc> {
    refuseManaged(await this.get(orgId, id));
    const agent = await this.store.archive(orgId, id);
    if (!agent) throw notFound("agent");
    return agent;
  }

  /** Permanent delete of an agent and all its versions; refused while any session still records it. */
  async delete(orgId: string, id: string): Promise<void> {
    refuseManaged(await this.get(orgId, id));
    if (await this.dependents.hasSessions(orgId, id)) {
      throw conflict("the agent still has sessions; delete them first, or archive the agent instead");
    }
    if (!(await this.store.delete(orgId, id))) throw notFound("agent");
  }

  async listVersions(orgId: string, id: string, opts: { limit: number; offset: number }): Promise<Page<VersionDoc>> {
    return this.store.listVersions(await this.get(orgId, id), opts);
  }

  async getVersion(orgId: string, id: string, version: number): Promise<VersionDoc> {
    const found = await this.store.getVersion(await this.get(orgId, id), version);
    if (!found) throw notFound("agent version");
    return found;
  }
}
