/** Session use cases: create (with the conversation allowance, then preparation), list, read, update, archive, compact, delete, prewarm. */
import type { FromSchemas } from "../../schemas/index.js";
import type { sessionCreateSchema } from "../../schemas/session-create.js";
import type { sessionUpdateSchema } from "../../schemas/session-update.js";
import type { Usage } from "./domain/events.js";
import { planCompactRequested } from "../worker/domain/compaction.js";
import { planArchive, planDelete, type SessionStatus } from "./domain/session-state.js";
import { AppError, invalidState, isAppError, notFound, validationError, type RateLimitStanding } from "../errors.js";
import { newId } from "../ids.js";
import type { Allowances } from "./redis/allowances.js";
import type { EventLog } from "./redis/event-log.js";
import type { StateSummary } from "./redis/log-entries.js";
import type { Intents } from "./redis/intents.js";
import type { SessionEndings } from "./redis/session-endings.js";
import type { AgentDoc, AgentStore, Page } from "../agents/store/agents.js";
import { isDuplicateKey } from "../mongo/mongo.js";
import type { SessionDoc, SessionFilter, SessionStore } from "./store/sessions.js";
import type { ThreadLink } from "./store/session-shape.js";
import type { PreparationService } from "./prewarm.js";
import { createKept, type Kept, type KeptId } from "../idempotency/index.js";
import { decided, type SessionTransitions } from "./transitions.js";

export type SessionCreateBody = FromSchemas<typeof sessionCreateSchema>;
export type SessionUpdateBody = FromSchemas<typeof sessionUpdateSchema>;

/** A session record with its status and usage total as the runtime state has them. */
export interface SessionView {
  doc: SessionDoc;
  status: SessionStatus;
  usage: Usage | null;
}

/**
 * How many sessions with records being changed a list matches by runtime status. Marks live for
 * milliseconds, so there are seldom more than a few; past this many, a list filter can lag by a moment.
 */
const CHANGING_LIMIT = 100;

/**
 * The runtime state is the authority; the record's projection covers a state not yet written (and a
 * session being deleted), and holds the usage total of a session whose state keeps none yet.
 */
function visible(doc: SessionDoc, runtime: StateSummary | undefined): SessionView {
  if (!runtime || runtime.status === "deleted") return { doc, status: doc.status, usage: doc.usage };
  return { doc, status: runtime.status, usage: runtime.usage === undefined ? doc.usage : runtime.usage };
}

export class SessionService {
  constructor(
    private readonly sessions: SessionStore,
    private readonly agents: AgentStore,
    private readonly log: EventLog,
    private readonly transitions: SessionTransitions,
    private readonly intents: Intents,
    private readonly allowances: Allowances,
    private readonly preparation: PreparationService,
    private readonly endings: SessionEndings,
  ) {}

  /** `id`: chosen by the caller (an automation run, which must create its session once); else a new one. */
  async create(orgId: string, body: SessionCreateBody, id: string = newId("ses")): Promise<{ view: SessionView; rateLimit: RateLimitStanding }> {
    const agent = await this.acceptingAgent(orgId, body.agentId);
    if (body.role !== undefined && !agent.current.roles.some((r) => r.name === body.role)) {
      throw validationError("role: must name a role of the agent's latest version");
    }
    const granted = await this.allowances.take(
      { orgId, agentId: agent._id, subjectId: body.subjectId },
      "conversations",
      agent.rateLimits.conversationsPerMinute,
      1,
    );
    const doc = await this.insert(orgId, agent, body, id, granted.refund);
    return { view: { doc, status: "idle", usage: null }, rateLimit: granted.standing };
  }

  /**
   * Opens a child thread of a delegation, once: `id` is derived from the parent's call, so a worker that
   * retries the call finds the thread its first attempt made. It takes no conversation point: it is part
   * of its parent's conversation, which took one (docs/decisions/sessions-and-events.md).
   */
  async openThread(orgId: string, agentId: string, subjectId: string, id: string, thread: ThreadLink): Promise<SessionDoc> {
    const existing = await this.sessions.get(orgId, id);
    if (existing) return existing;
    const agent = await this.acceptingAgent(orgId, agentId);
    try {
      return await this.insert(orgId, agent, { agentId, subjectId }, id, async () => undefined, thread);
    } catch (err) {
      const made = isDuplicateKey(err) ? await this.sessions.get(orgId, id) : null;
      if (made) return made;
      throw err;
    }
  }

  private async acceptingAgent(orgId: string, agentId: string): Promise<AgentDoc> {
    const agent = await this.agents.get(orgId, agentId);
    if (!agent) throw notFound("agent");
    if (agent.status === "archived") throw invalidState("the agent is archived and accepts no new sessions");
    return agent;
  }

  /** The record and the event log of a new session whose allowance was taken (`refund` returns it). */
  private async insert(
    orgId: string,
    agent: AgentDoc,
    body: SessionCreateBody,
    id: string,
    refund: () => Promise<void>,
    thread?: ThreadLink,
  ): Promise<SessionDoc> {
    const now = new Date();
    const doc: SessionDoc = {
      _id: id,
      orgId,
      agentId: agent._id,
      agentVersion: agent.version,
      subjectId: body.subjectId,
      role: body.role ?? null,
      title: body.title ?? null,
      titleSource: body.title !== undefined ? "caller" : null,
      yoloMode: body.yoloMode ?? false,
      metadata: body.metadata ?? {},
      budgetUsd: body.budget?.limitUsd ?? null,
      ...(agent.deploymentId ? { deploymentId: agent.deploymentId } : {}),
      ...(thread ? { thread } : {}),
      status: "idle",
      statusVersion: 0,
      usage: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.log.initialize(doc._id, { orgId, agentId: agent._id, subjectId: body.subjectId });
      await this.sessions.insert(doc);
    } catch (err) {
      // Not durably created, so not counted (counting rule 6), and no event log left behind; unless the
      // id is taken: a concurrent creator of the same chosen id made the session, and the log is its.
      await Promise.allSettled(isDuplicateKey(err) ? [refund()] : [refund(), this.log.delete(doc._id)]);
      throw err;
    }
    // An agent deleted or archived while this session was being created: either its delete saw the
    // session (and refused or, a deployment's teardown, deletes it), or this check sees it gone or archived.
    const after = await this.agents.get(orgId, agent._id);
    if (!after || after.status === "archived") {
      await this.sessions.delete(orgId, doc._id);
      await this.log.delete(doc._id);
      throw after ? invalidState("the agent is archived and accepts no new sessions") : notFound("agent");
    }
    this.preparation.sessionCreated(doc);
    return doc;
  }

  /**
   * Creates the session of the chosen `id` unless it exists: a retried automation run finds the session
   * its first attempt made, and takes no second conversation point. `mayExist`: false when the caller
   * knows no attempt came before (the id's record is not read first; a racing one is still found).
   */
  async createOnce(orgId: string, body: SessionCreateBody, id: string, mayExist = true): Promise<SessionView> {
    return (await this.createKept(orgId, body, { id, retaken: mayExist })).value.view;
  }

  /** A create under an Idempotency-Key (`kept-creates.ts`), with the allowance's standing when this call made the session. */
  createKept(orgId: string, body: SessionCreateBody, kept: KeptId | undefined): Promise<Kept<{ view: SessionView; rateLimit?: RateLimitStanding }>> {
    return createKept(
      kept,
      async (id) => {
        const doc = await this.sessions.get(orgId, id);
        return doc && { view: visible(doc, await this.log.state(id)) };
      },
      (id) => this.create(orgId, body, id),
    );
  }

  async get(orgId: string, id: string): Promise<SessionView> {
    const doc = await this.sessions.get(orgId, id);
    if (!doc) throw notFound("session");
    return visible(doc, await this.log.state(id));
  }

  /** The sessions of these ids that exist in the organization, in the order given. */
  async views(orgId: string, ids: string[]): Promise<SessionView[]> {
    const docs = (await Promise.all(ids.map((id) => this.sessions.get(orgId, id)))).filter((d): d is SessionDoc => d !== null);
    const summaries = await this.log.summaries(docs.map((d) => d._id));
    return docs.map((doc) => visible(doc, summaries.get(doc._id)));
  }

  /**
   * The records' status selects the page, except for sessions whose records are being changed (their
   * writers' marks, or a dead writer's): those are matched by their status in Redis, the authority, as
   * every item finally is. So a list agrees with the log even while a record lags it.
   */
  async list(orgId: string, filter: SessionFilter, opts: { limit: number; offset: number }): Promise<Page<SessionView>> {
    const changing = await this.intents.changing(CHANGING_LIMIT);
    // Each marked session may be taken and then left out: fetch as many more, so the page stays full.
    const page = await this.sessions.list(orgId, filter, { limit: opts.limit + changing.length, offset: opts.offset }, changing);
    const summaries = await this.log.summaries(page.items.map((d) => d._id));
    const matches = (status: SessionStatus) => (filter.status ? status === filter.status : status !== "archived");
    const items = page.items.map((doc) => visible(doc, summaries.get(doc._id))).filter((item) => matches(item.status));
    return { hasMore: page.hasMore || items.length > opts.limit, items: items.slice(0, opts.limit) };
  }

  async update(orgId: string, id: string, body: SessionUpdateBody): Promise<SessionView> {
    const set: Parameters<SessionStore["update"]>[2] = {};
    if (body.title !== undefined) Object.assign(set, { title: body.title, titleSource: "caller" });
    if (body.yoloMode !== undefined) set.yoloMode = body.yoloMode;
    if (body.metadata !== undefined) set.metadata = body.metadata;
    if (body.budget !== undefined) set.budgetUsd = body.budget.limitUsd;
    const doc = await this.sessions.update(orgId, id, set);
    if (!doc) throw notFound("session");
    return visible(doc, await this.log.state(id));
  }

  /**
   * Idempotent; refused while a turn runs or waits, decided atomically against the runtime state. An
   * archived session takes no more turns, so no `process` call could reach its background processes:
   * a notice tells the workers to kill them (the workspace stays until the session is deleted).
   */
  async archive(orgId: string, id: string): Promise<SessionView> {
    const doc = await this.sessions.get(orgId, id);
    if (!doc) throw notFound("session");
    const { state } = await this.transitions.run(id, (state) => decided(planArchive(state)));
    await this.endings.announce(id, "archived");
    return { ...visible(doc, state), doc: { ...doc, status: "archived" }, status: "archived" };
  }

  /** Asks a worker to compact the conversation: now if idle, else before the running turn's next model call. */
  async compact(orgId: string, id: string): Promise<void> {
    if (!(await this.sessions.get(orgId, id))) throw notFound("session");
    await this.transitions.run(id, (state) => decided(planCompactRequested(state)));
  }

  /**
   * Deletes the record and the whole event log; refused while a turn runs or waits. Once the state says
   * deleted, a notice tells the workers to kill the session's processes and remove its workspace; a
   * retry after a failure gives the notice again.
   */
  async delete(orgId: string, id: string): Promise<void> {
    const doc = await this.sessions.get(orgId, id);
    if (!doc) throw notFound("session");
    try {
      await this.transitions.run(id, (state) => decided(planDelete(state)));
    } catch (err) {
      // No runtime state: an earlier delete removed the keys and stopped before the record.
      if (!isAppError(err, "not_found")) throw err;
    }
    try {
      await this.endings.announce(id, "deleted");
      await this.log.delete(id);
    } catch (err) {
      throw new AppError("runtime_delete_failed", "the session's event log could not be deleted; retry the deletion", {}, err);
    }
    await this.sessions.delete(orgId, id);
  }

  /** An idempotent hint that a session is coming: prepares what it can, creates nothing; answers the prewarm's `reason`. */
  async warm(orgId: string, agentId: string, subjectId: string): Promise<string | null> {
    return this.preparation.warm(orgId, agentId, subjectId);
  }
}
