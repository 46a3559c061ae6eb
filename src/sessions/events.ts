/** Inbound events: send rules, the message allowance, and the transition that moves the session. */
import type { FromSchemas } from "../../schemas/index.js";
import type { eventsPostSchema } from "../../schemas/events-post.js";
import { DEFAULT_RATE_LIMITS } from "../agents/domain/agent-config.js";
import { attachmentProblems, sanitizeFilename } from "./domain/attachments.js";
import type { Envelope, InboundEvent } from "./domain/events.js";
import { planInbound } from "./domain/inbound-plan.js";
import { startsTurn } from "./domain/session-state.js";
import { spentUsd } from "./domain/budgets.js";
import { idempotencyMismatch, isAppError, notFound, validationError, type RateLimitStanding } from "../errors.js";
import { type EventLog } from "./redis/event-log.js";
import { identityOf, type SessionIdentity } from "./redis/log-entries.js";
import type { SessionFactsCache } from "./session-facts.js";
import { doneBefore, onceField, sameRequest, type DoneBefore, type Once } from "../idempotency/index.js";
import type { Budgets } from "./budgets.js";
import { decided, type SessionTransitions } from "./transitions.js";

export type EventsPostBody = FromSchemas<typeof eventsPostSchema>;

/** Send rules 1 and 5 and the attachment rules; returns the events as they will be stored. */
/** A send's answer: the events appended, the allowance's standing; `replayed` when a first attempt had appended them. */
export interface Sent {
  data: Envelope[];
  rateLimit?: RateLimitStanding;
  replayed?: true;
}

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
    private readonly facts: SessionFactsCache,
    private readonly log: EventLog,
    private readonly transitions: SessionTransitions,
    private readonly budgets: Budgets,
  ) {}

  /**
   * The identity of a session whose runtime state was found (`stored`: the identity it keeps), from the
   * process's cache of session facts. Another organization's session is not found.
   */
  private async identity(orgId: string, sessionId: string, stored: SessionIdentity | null): Promise<SessionIdentity> {
    const found = await this.facts.identity(sessionId, stored);
    if (found?.orgId !== orgId) throw notFound("session");
    return found;
  }

  /** Checks that the session exists in the caller's organization. */
  async sessionOf(orgId: string, sessionId: string): Promise<SessionIdentity> {
    const stored = await this.log.identity(sessionId);
    if (!stored) {
      this.facts.forget(sessionId);
      throw notFound("session");
    }
    return this.identity(orgId, sessionId, stored.identity);
  }

  /**
   * Sends a batch in two round trips: the state and the agent's limits read together (beside the key's
   * ceiling count, `ceiling`), then the commit that appends, counts the allowance and wakes a worker.
   * A batch the state machine refuses is never counted (counting rule: a rejection before persistence is free).
   */
  async post(orgId: string, sessionId: string, body: EventsPostBody, ceiling: Promise<void>, once?: Once): Promise<Sent> {
    const events = checkBatch(body);
    const cached = this.facts.known(sessionId);
    const limitsOf = (agentId: string) => this.budgets.limits(orgId, agentId);
    const field = once && onceField(once);
    // The limits go with the first read when the agent is known; a session new to this process reads them after.
    const [, from, cachedLimits, done] = await Promise.all([
      ceiling,
      this.log.snapshot(sessionId),
      cached && limitsOf(cached.agentId),
      field && this.log.onceMark(sessionId, field),
    ]);
    if (!from) {
      this.facts.forget(sessionId);
      throw notFound("session");
    }
    const session = await this.identity(orgId, sessionId, identityOf(from.fields));
    if (done) return this.replay(sessionId, once!, doneBefore(done));
    const limits = cachedLimits === undefined ? await limitsOf(session.agentId) : cachedLimits;
    if (events.some(startsTurn))
      await this.budgets.refuseTurn({ sessionId, orgId, agentId: session.agentId, subjectId: session.subjectId }, spentUsd(from.state.usage), limits);
    try {
      const {
        value,
        applied,
        doneBefore: before,
      } = await this.transitions.run(
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
          once: once && { request: once, answers: (result) => result?.persisted.map((d) => d.id) ?? [] },
        },
      );
      if (before) return this.replay(sessionId, once!, before);
      const result = value!;
      const persisted = new Set(result.persisted.map((d) => d.id));
      const data = applied!.envelopes.filter((e) => persisted.has(e.id));
      // A final result that replaced its running one is answered with the event as it now reads.
      const replaced = result.replaced && (await this.log.findById(sessionId, result.replaced.eventId));
      if (replaced) data.push(replaced);
      return { data, rateLimit: applied!.standing! };
    } catch (err) {
      if (isAppError(err, "not_found")) this.facts.forget(sessionId);
      // Refused by the state a first attempt under the same key made (committed after our first read): its answer.
      const mark = field && isAppError(err) && (await this.log.onceMark(sessionId, field));
      if (mark) return this.replay(sessionId, once!, doneBefore(mark));
      throw err;
    }
  }

  /**
   * The answer to a send whose first attempt was committed under the same Idempotency-Key and whose
   * answer was lost (its process died): the events it appended, as they now read; nothing is appended.
   */
  private async replay(sessionId: string, once: Once, before: DoneBefore): Promise<Sent> {
    if (!sameRequest(once, before)) throw idempotencyMismatch();
    const wanted = new Set(before.sequences);
    const data: Envelope[] = [];
    if (wanted.size > 0)
      for await (const { envelope } of this.log.events(sessionId, Math.min(...wanted) - 1, Math.max(...wanted)))
        if (wanted.has(envelope.sequence)) data.push(envelope);
    return { data, replayed: true };
  }

  async history(orgId: string, sessionId: string, after: number, limit: number): Promise<{ data: Envelope[]; hasMore: boolean }> {
    await this.sessionOf(orgId, sessionId);
    const page = await this.log.page(sessionId, after, limit);
    return { data: page.events.map((e) => e.envelope), hasMore: page.more };
  }
}
