/**
 * Forks: a new session whose history is a prefix of another's, cut at an idle point, copied a page at
 * a time with new ids (`domain/fork-plan.ts`, `redis/fork-copier.ts`). It counts as a conversation,
 * exactly like a create (docs/decisions/sessions-and-events.md, "Forks").
 */
import type { FromSchemas } from "../../schemas/index.js";
import type { sessionForkSchema } from "../../schemas/session-fork.js";
import { invalidState, notFound, type RateLimitStanding } from "../errors.js";
import { newId } from "../ids.js";
import { createKept, type Kept, type KeptId } from "../idempotency/index.js";
import { isDuplicateKey } from "../mongo/mongo.js";
import type { AgentStore } from "../agents/store/agents.js";
import { ForkPlanner } from "./domain/fork-plan.js";
import type { Allowances } from "./redis/allowances.js";
import type { EventLog } from "./redis/event-log.js";
import type { ForkCopier } from "./redis/fork-copier.js";
import type { PreparationService } from "./prewarm.js";
import type { SessionService, SessionView } from "./sessions.js";
import type { SessionDoc, SessionStore } from "./store/sessions.js";

export type SessionForkBody = FromSchemas<typeof sessionForkSchema>;

/** Events of the original read, and copied by one script, at a time. */
export const FORK_PAGE = 1000;

export class SessionForks {
  constructor(
    private readonly sessions: SessionStore,
    private readonly views: SessionService,
    private readonly agents: AgentStore,
    private readonly log: EventLog,
    private readonly copier: ForkCopier,
    private readonly allowances: Allowances,
    private readonly preparation: PreparationService,
  ) {}

  /** A fork under an Idempotency-Key: a retry finds the session its first attempt made (`kept-creates.ts`). */
  forkKept(
    orgId: string,
    sourceId: string,
    body: SessionForkBody,
    kept: KeptId | undefined,
  ): Promise<Kept<{ view: SessionView; rateLimit?: RateLimitStanding }>> {
    return createKept(
      kept,
      async (id) => {
        const [view] = await this.views.views(orgId, [id]);
        return view ? { view } : null;
      },
      (id) => this.fork(orgId, sourceId, body, id),
    );
  }

  async fork(orgId: string, sourceId: string, body: SessionForkBody, id: string = newId("ses")): Promise<{ view: SessionView; rateLimit: RateLimitStanding }> {
    const source = await this.sessions.get(orgId, sourceId);
    const state = source && (await this.log.existingState(sourceId));
    if (!source || !state || state.status === "deleted") throw notFound("session");
    const last = await this.log.lastSequence(sourceId);
    const cut = body.atSequence ?? last;
    if (cut > last) throw invalidState(`atSequence: ${cut} is past the session's last event (sequence ${last})`);
    // The usual case, the whole history of a busy session, is refused before anything is copied.
    if (body.atSequence === undefined && (state.turn !== null || state.queue.length > 0)) {
      throw invalidState("the session is in a turn or has messages waiting: fork it once idle, or at an earlier sequence");
    }
    const agent = await this.agents.get(orgId, source.agentId);
    if (!agent) throw notFound("agent");
    if (agent.status === "archived") throw invalidState("the agent is archived and accepts no new sessions");
    const scope = { orgId, agentId: source.agentId, subjectId: source.subjectId };
    const granted = await this.allowances.take(scope, "conversations", agent.rateLimits.conversationsPerMinute, 1);
    let doc: SessionDoc;
    try {
      const planner = await this.copy(sourceId, id, cut, scope);
      const now = new Date();
      // Named field by field: a thread's link to its parent is not the fork's (a fork is a session of its own).
      doc = {
        _id: id,
        orgId,
        agentId: source.agentId,
        agentVersion: source.agentVersion,
        subjectId: source.subjectId,
        role: source.role,
        title: body.title ?? source.title,
        titleSource: body.title !== undefined ? "caller" : source.titleSource,
        yoloMode: source.yoloMode,
        metadata: body.metadata ?? source.metadata,
        budgetUsd: source.budgetUsd ?? null,
        ...(source.deploymentId ? { deploymentId: source.deploymentId } : {}),
        forkedFrom: { sessionId: sourceId, sequence: cut },
        status: "idle",
        statusVersion: 0,
        usage: planner.startingUsage(),
        createdAt: now,
        updatedAt: now,
      };
      await this.sessions.insert(doc);
    } catch (err) {
      // Not made, so not counted; and nothing of the copy left (unless the id is taken: a racing attempt made it).
      await Promise.allSettled(isDuplicateKey(err) ? [granted.refund()] : [granted.refund(), this.log.delete(id)]);
      throw err;
    }
    this.preparation.sessionCreated(doc);
    return { view: { doc, status: "idle", usage: doc.usage }, rateLimit: granted.standing };
  }

  /**
   * Copies the original's events up to `cut`, a page per script; the last page writes the state. The cut
   * is checked once its history is read, before that last page: a refused fork leaves only expiring keys.
   */
  private async copy(sourceId: string, id: string, cut: number, identity: { orgId: string; agentId: string; subjectId: string }): Promise<ForkPlanner> {
    const planner = new ForkPlanner(id);
    for (let after = 0; ;) {
      const { events, more } = await this.log.page(sourceId, after, FORK_PAGE, cut);
      const entries = planner.page(events.map((e) => e.envelope));
      const done = !more || events.length === 0;
      if (done) {
        // Fewer events than the cut: the original was deleted while it was read.
        if (planner.count !== cut) throw notFound("session");
        const problem = planner.cutProblem();
        if (problem) throw invalidState(`atSequence: ${cut} is not an idle point of the session: ${problem}`);
      }
      await this.copier.page(id, after + 1, entries, done ? { identity, usage: planner.startingUsage() } : null);
      if (done) return planner;
      after = events.at(-1)!.envelope.sequence;
    }
  }
}
