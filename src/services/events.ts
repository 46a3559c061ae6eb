/** Inbound events: send rules, the message allowance, and the transition that moves the session. */
import type { FromSchemas } from "../../schemas/index.js";
import type { eventsPostSchema } from "../../schemas/events-post.js";
import { DEFAULT_RATE_LIMITS } from "../domain/agent-config.js";
import { attachmentProblems, sanitizeFilename } from "../domain/attachments.js";
import type { Envelope, InboundEvent } from "../domain/events.js";
import { planInbound } from "../domain/inbound-plan.js";
import { startsTurn } from "../domain/session-state.js";
import { budgetReached, spentUsd } from "../domain/budgets.js";
import { AppError, isAppError, notFound, validationError, type RateLimitStanding } from "../errors.js";
import type { RateLimitCache } from "../redis/rate-limit-cache.js";
import { Lru } from "../lru.js";
import { identityOf, type EventLog, type SessionIdentity } from "../redis/event-log.js";
import type { AgentStore } from "../store/agents.js";
import type { SessionStore } from "../store/sessions.js";
import { decided, type SessionTransitions } from "./session-transitions.js";

export type EventsPostBody = FromSchemas<typeof eventsPostSchema>;

const IDENTITY_CACHE_SIZE = 10_000;

/** Send rules 1 and 5 and the attachment rules; returns the events as they will be stored. */
export function checkBatch(body: EventsPostBody): InboundEvent[] {
  const problems: string[] = [];
  if (body.events.filter(startsTurn).length > 1) problems.push("events: at most one event per request may start a turn (user.message)");
  if (body.delivery === "when_idle") {
    body.events.forEach((e, i) => {
      if (!startsTurn(e)) problems.push(`events[${i}].type: delivery when_idle accepts only user.message events`);
    });
  }
  const events = body.events.map((e, i) => {
    if (e.type !== "user.message" || !e.attachments) return e;
    e.attachments.forEach((a, j) => problems.push(...attachmentProblems(a, `events[${i}].attachments[${j}]`)));
    return { ...e, attachments: e.attachments.map((a) => ({ ...a, filename: sanitizeFilename(a.filename) })) };
  });
  if (problems.length > 0) throw validationError(problems);
  return events;
}

export class EventService {
  constructor(
    private readonly sessions: SessionStore,
    private readonly agents: AgentStore,
    private readonly log: EventLog,
    private readonly transitions: SessionTransitions,
    private readonly limits: RateLimitCache,
  ) {}

  private readonly identities = new Lru<string, SessionIdentity>(IDENTITY_CACHE_SIZE);

  /**
   * The session's identity (immutable): from a small in-process cache, else from its runtime state
   * (`known`, or read), which keeps it from creation; a session created before the state kept it is read
   * from its record once. Another organization's session is not found.
   */
  private async identity(orgId: string, sessionId: string, known: SessionIdentity | null): Promise<SessionIdentity> {
    const cached = this.identities.get(sessionId);
    let found = cached ?? known;
    if (!found) {
      const doc = await this.sessions.get(orgId, sessionId);
      if (!doc) throw notFound("session");
      found = { orgId: doc.orgId, agentId: doc.agentId, subjectId: doc.subjectId };
    }
    if (!cached) this.identities.set(sessionId, found);
    if (found.orgId !== orgId) throw notFound("session");
    return found;
  }

  /** Checks that the session exists in the caller's organization. */
  async sessionOf(orgId: string, sessionId: string): Promise<SessionIdentity> {
    const stored = await this.log.identity(sessionId);
    if (!stored) {
      this.identities.delete(sessionId);
      throw notFound("session");
    }
    return this.identity(orgId, sessionId, stored.identity);
  }

  /**
   * Sends a batch in two round trips: the state and the agent's limits read together (beside the key's
   * ceiling count, `ceiling`), then the commit that appends, counts the allowance and wakes a worker.
   * A batch the state machine refuses is never counted (counting rule: a rejection before persistence is free).
   */
  async post(orgId: string, sessionId: string, body: EventsPostBody, ceiling: Promise<void>): Promise<{ data: Envelope[]; rateLimit: RateLimitStanding }> {
    const events = checkBatch(body);
    const cached = this.identities.get(sessionId);
    const limitsOf = (agentId: string) => this.limits.get(agentId, async () => (await this.agents.get(orgId, agentId))?.rateLimits ?? null);
    // The limits go with the first read when the agent is known; a session new to this process reads them after.
    const [, from, cachedLimits] = await Promise.all([ceiling, this.log.snapshot(sessionId), cached && limitsOf(cached.agentId)]);
    if (!from) {
      this.identities.delete(sessionId);
      throw notFound("session");
    }
    const session = await this.identity(orgId, sessionId, identityOf(from.fields));
    const limits = cachedLimits === undefined ? await limitsOf(session.agentId) : cachedLimits;
    await this.requireBudget(orgId, sessionId, events, spentUsd(from.state.usage));
    try {
      const { value, applied } = await this.transitions.run(
        sessionId,
        (state) => decided(planInbound(state, sessionId, events, body.delivery ?? "immediate", new Date().toISOString())),
        {
          from,
          allowance: {
            scope: { orgId, agentId: session.agentId, subjectId: session.subjectId },
            kind: "messages",
            limit: limits?.messagesPerMinute ?? DEFAULT_RATE_LIMITS.messagesPerMinute,
            cost: events.length,
          },
        },
      );
      const result = value!;
      const persisted = new Set(result.persisted.map((d) => d.id));
      const data = applied!.envelopes.filter((e) => persisted.has(e.id));
      // A final result that replaced its running one is answered with the event as it now reads.
      const replaced = result.replaced && (await this.log.findById(sessionId, result.replaced.eventId));
      if (replaced) data.push(replaced);
      return { data, rateLimit: applied!.standing! };
    } catch (err) {
      if (isAppError(err, "not_found")) this.identities.delete(sessionId);
      throw err;
    }
  }

  /**
   * A batch that would start a turn is refused once the session's spend has reached its budget. The
   * record is read only for a session that has spent something: a send to one that has not costs no read.
   */
  private async requireBudget(orgId: string, sessionId: string, events: InboundEvent[], spent: number): Promise<void> {
    if (spent <= 0 || !events.some(startsTurn)) return;
    const limit = (await this.sessions.get(orgId, sessionId))?.budgetUsd;
    if (budgetReached(limit, spent)) {
      throw new AppError("budget_exceeded", `the session has spent ${spent} USD of its ${limit} USD budget; raise budget.limitUsd to send more messages`);
    }
  }

  async history(orgId: string, sessionId: string, after: number, limit: number): Promise<{ data: Envelope[]; hasMore: boolean }> {
    await this.sessionOf(orgId, sessionId);
    const page = await this.log.history(sessionId, after, limit + 1);
    return { data: page.slice(0, limit), hasMore: page.length > limit };
  }
}
