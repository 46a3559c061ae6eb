/**
 * The background work of a deployment: provisioning (its agent, its workspace, a check of each MCP
 * server, its default thread) and teardown after a delete. Every step is idempotent and keyed by ids
 * chosen at create, and the work is held under a lease in the record (`HeldLease`), renewed while the run
 * works: a process that dies holding it leaves it to the recovery sweep of another, which redoes the
 * steps from the start; a run that lost it stops before its next write.
 */
import { configFromCreateBody, rateLimitsFrom } from "../agents/domain/agent-config.js";
import { agentBodyOf } from "./domain/agent.js";
import { sameValue } from "./domain/deployments.js";
import { AppError, isAppError } from "../errors.js";
import type { Logger } from "../log.js";
import { configOf, type AgentStore } from "../agents/store/agents.js";
import type { DeploymentDoc, DeploymentStore } from "./store/deployments.js";
import { HeldLease } from "./lease.js";
import type { EventService } from "../sessions/events.js";
import type { McpAccess } from "../vaults/mcp-access.js";
import type { DeploymentNotices } from "./deployment-notices.js";
import type { SessionService } from "../sessions/sessions.js";
import { withSpan } from "../telemetry/tracing.js";

/** The deployment's workspace: made at provisioning; at teardown removed, or kept as a snapshot. */
export interface DeploymentWorkspaces {
  prepare(doc: DeploymentDoc): Promise<void>;
  /** Removes it, or with `retain` moves it into a snapshot kept for the retention period. */
  dispose(doc: DeploymentDoc, retain: boolean): Promise<void>;
}

/** What else a deleted deployment leaves behind (memories, automations, skills, grants, its webhook). */
export interface AgentLeftovers {
  purge(doc: DeploymentDoc): Promise<void>;
}

export interface ProvisioningDeps {
  store: DeploymentStore;
  agents: AgentStore;
  sessions: SessionService;
  events: EventService;
  mcp: McpAccess;
  workspaces: DeploymentWorkspaces;
  leftovers: AgentLeftovers;
  /** The organization's webhook notice of the deletion, queued before the record goes. */
  notices: Pick<DeploymentNotices, "deploymentDeleted">;
  logger: Logger;
  leaseMs: number;
}

/** Provisioning runs one holder of the lease makes in a row while updates keep coming; then the sweep carries on. */
const MAX_ROUNDS = 5;

/** Threads deleted per page of a teardown. */
const PAGE = 100;

/** Publishes of the agent one sync tries while other writers keep taking the next version number. */
const SYNC_ATTEMPTS = 5;

export class DeploymentProvisioning {
  private readonly running = new Set<string>();

  constructor(private readonly deps: ProvisioningDeps) {}

  /** Starts the deployment's pending work in the background (the answer to its request does not wait). */
  kick(id: string): void {
    void this.work(id).catch((err: unknown) => this.deps.logger.warn("deployment work failed; the recovery sweep retries it", { deploymentId: id, err }));
  }

  /**
   * Starts the teardown of a deployment just marked deleted, once its agent is archived: from the answer
   * to the delete on, no thread of it can be made through either interface. Should archiving fail here,
   * the teardown archives it first.
   */
  async beginTeardown(doc: DeploymentDoc): Promise<void> {
    await this.deps.agents
      .archive(doc.orgId, doc.agentId)
      .catch((err: unknown) =>
        this.deps.logger.warn("a deleted deployment's agent could not be archived; its teardown does it", { deploymentId: doc._id, err }),
      );
    this.kick(doc._id);
  }

  /** Takes over every record whose work is due and unleased (its process died, or it never began), `pageSize` at a time. */
  async sweep(pageSize = 50): Promise<number> {
    let taken = 0;
    const page: Promise<void>[] = [];
    for await (const d of this.deps.store.pendingWork(new Date(), pageSize)) {
      page.push(this.work(d._id).catch((err: unknown) => this.deps.logger.warn("deployment work failed; retried later", { deploymentId: d._id, err })));
      taken++;
      if (page.length === pageSize) await Promise.all(page.splice(0));
    }
    await Promise.all(page);
    return taken;
  }

  /** Provisions or tears down the deployment, when its lease can be taken; a failure worth retrying releases it. */
  async work(id: string): Promise<void> {
    if (this.running.has(id)) return;
    this.running.add(id);
    try {
      const held = await HeldLease.take(this.deps.store, id, this.deps.leaseMs);
      if (!held) return;
      const { doc, lease } = held;
      try {
        const attributes = { "agent_sessions.deployment.id": id };
        if (doc.deleting) await withSpan("deployment.teardown", attributes, () => this.teardown(doc, lease));
        else if (doc.status === "provisioning") await withSpan("deployment.provision", attributes, () => this.provision(doc, lease));
        else await this.deps.store.release(id, lease.owner);
      } catch (err) {
        if (isAppError(err, "lock_lost")) {
          this.deps.logger.warn("deployment work stopped: its lease was lost, and another process carries it on", { deploymentId: id });
          return;
        }
        await this.deps.store.release(id, lease.owner).catch(() => undefined);
        throw err;
      } finally {
        lease.stop();
      }
    } finally {
      this.running.delete(id);
    }
  }

  private async provision(doc: DeploymentDoc, lease: HeldLease, rounds = 1): Promise<void> {
    const { store, logger } = this.deps;
    let reason: string | null;
    try {
      lease.check();
      await this.syncAgent(doc);
      lease.check();
      await this.deps.workspaces.prepare(doc);
      reason = await this.checkServers(doc);
      if (reason === null) {
        lease.check();
        await this.deps.sessions.createOnce(doc.orgId, { agentId: doc.agentId, subjectId: doc.customerId, title: doc.settings.name }, doc.threadId);
      }
    } catch (err) {
      // A refusal of ours (a rule, a limit) will not change by retrying: the deployment is in error.
      if (!(err instanceof AppError) || ["unavailable", "busy", "internal", "lock_lost"].includes(err.code)) throw err;
      reason = err.message;
    }
    lease.check();
    const settled = await store.settle(doc._id, lease.owner, doc.revision, reason === null ? "ready" : "error", reason);
    logger.info("deployment provisioned", { deploymentId: doc._id, status: reason === null ? "ready" : "error", settled });
    if (settled) return;
    // Updated or deleted meanwhile: provisioned again at once with the settings as they are now, or torn down (while the lease is still this run's).
    const now = await store.byId(doc._id);
    if (now?.leaseOwner !== lease.owner) lease.lose();
    if (now.deleting) await this.teardown(now, lease);
    else if (now.status === "provisioning" && now.revision !== doc.revision && rounds < MAX_ROUNDS) await this.provision(now, lease, rounds + 1);
    else await store.release(doc._id, lease.owner);
  }

  /**
   * Moves the agent to the deployment's settings as they are now (whatever revision the caller read):
   * made under the id chosen at create, or published as a new version when they differ. Syncs take
   * turns with each other and with every write of the record, so the last one publishes the newest
   * settings whatever order updates and runs reach here in; and each version records the revision it
   * comes from, and none is published over one from a newer revision, should a sync outlast its turn.
   */
  async syncAgent(doc: DeploymentDoc): Promise<void> {
    await this.deps.store.inTurn(doc._id, async (now) => {
      if (!now || now.deleting) return;
      const config = configFromCreateBody(agentBodyOf(now._id, now.settings));
      for (let attempt = 0; attempt < SYNC_ATTEMPTS; attempt++) {
        const agent = await this.deps.agents.get(now.orgId, now.agentId);
        if (!agent) {
          try {
            await this.deps.agents.create(now.orgId, config, rateLimitsFrom(undefined), { id: now.agentId, deploymentId: now._id, revision: now.revision });
            return;
          } catch (err) {
            // A retried run whose first attempt made the agent: it is there now.
            if (!(await this.deps.agents.get(now.orgId, now.agentId))) throw err;
            continue;
          }
        }
        if ((agent.current.deploymentRevision ?? 0) >= now.revision || sameValue(configOf(agent.current), config)) return;
        const published = await this.deps.agents.publish(agent, config, undefined, { deploymentRevision: now.revision });
        if (published.ok || published.reason === "not_found") return;
      }
      throw new AppError("busy", "the deployment's agent kept changing during this update; retry");
    });
  }

  /** Each MCP server answers with its tools; the first that does not is the deployment's error. */
  private async checkServers(doc: DeploymentDoc): Promise<string | null> {
    const owner = { orgId: doc.orgId, agentId: doc.agentId };
    for (const server of doc.settings.mcpServers) {
      try {
        await this.deps.mcp.probe(owner, { name: server.name, url: server.url });
      } catch (err) {
        if (!isAppError(err)) throw err;
        return `MCP server ${server.name} could not be reached: ${err.message}`;
      }
    }
    return null;
  }

  /**
   * The agent is archived first: from then on no thread of it can be made (a create racing the archive
   * finds the agent archived after its insert, and deletes its thread), so once a listing finds no
   * thread, none is left behind. Then what else the agent left, the agent, the workspace, the record.
   */
  private async teardown(doc: DeploymentDoc, lease: HeldLease): Promise<void> {
    const { sessions, agents, leftovers, workspaces, store } = this.deps;
    lease.check();
    await agents.archive(doc.orgId, doc.agentId);
    for (const status of [undefined, "archived" as const]) {
      for (;;) {
        const page = await sessions.list(doc.orgId, { agentId: doc.agentId, ...(status ? { status } : {}) }, { limit: PAGE, offset: 0 });
        if (page.items.length === 0) break;
        for (const view of page.items) {
          lease.check();
          await this.deleteThread(doc, view.doc._id);
        }
      }
    }
    lease.check();
    await leftovers.purge(doc);
    lease.check();
    await agents.delete(doc.orgId, doc.agentId);
    lease.check();
    await workspaces.dispose(doc, doc.deleting?.retainFilesystem ?? false);
    lease.check();
    await this.deps.notices.deploymentDeleted(doc);
    if (!(await store.remove(doc._id, lease.owner))) lease.lose();
    this.deps.logger.info("deployment deleted", { deploymentId: doc._id, retainedFilesystem: doc.deleting?.retainFilesystem ?? false });
  }

  /** Deletes a thread; one still running is interrupted first, and the teardown retried once it has stopped. */
  private async deleteThread(doc: DeploymentDoc, sessionId: string): Promise<void> {
    try {
      await this.deps.sessions.delete(doc.orgId, sessionId);
    } catch (err) {
      // Gone already: a thread whose create found the agent archived deletes itself.
      if (isAppError(err, "not_found")) return;
      if (!isAppError(err, "invalid_state")) throw err;
      await this.deps.events.post(doc.orgId, sessionId, { events: [{ type: "user.interrupt" }] }, Promise.resolve()).catch(() => undefined);
      throw new AppError("busy", "a thread of the deployment is still running; its teardown is retried once it has stopped", {}, err);
    }
  }
}
