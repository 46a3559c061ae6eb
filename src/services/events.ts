/** Inbound events: send rules, the message allowance, and the atomic append that moves the session. */
import { attachmentProblems, sanitizeFilename } from "../domain/attachments.js";
import type { Envelope, InboundEvent } from "../domain/events.js";
import { planInbound, startsTurn } from "../domain/session-state.js";
import { ApiError, notFound, validationError } from "../http/errors.js";
import { joinEntries } from "../http/validate.js";
import type { Logger } from "../log.js";
import type { Allowances, Granted } from "../redis/allowances.js";
import type { EventLog } from "../redis/event-log.js";
import { publishWakeup } from "../redis/wakeups.js";
import type { Redis } from "ioredis";
import type { AgentStore } from "../store/agents.js";
import type { SessionStore } from "../store/sessions.js";

export interface EventsPostBody {
  events: InboundEvent[];
  delivery?: "immediate" | "when_idle";
}

const MAX_CAS_ATTEMPTS = 50;

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
  if (problems.length > 0) throw validationError(joinEntries(problems));
  return events;
}

export class EventService {
  constructor(
    private readonly sessions: SessionStore,
    private readonly agents: AgentStore,
    private readonly log: EventLog,
    private readonly allowances: Allowances,
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  async sessionOf(orgId: string, sessionId: string) {
    const session = await this.sessions.get(orgId, sessionId);
    if (!session) throw notFound("session");
    return session;
  }

  async post(orgId: string, sessionId: string, body: EventsPostBody): Promise<{ data: Envelope[]; headers: Record<string, string> }> {
    const events = checkBatch(body);
    const session = await this.sessionOf(orgId, sessionId);
    let granted: Granted | undefined;
    try {
      for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
        const state = await this.log.state(sessionId);
        const result = planInbound(state, sessionId, events, body.delivery ?? "immediate", new Date().toISOString());
        if (!result.ok) throw new ApiError(result.rejection.code === "validation_error" ? 400 : 409, result.rejection.code, result.rejection.message);
        // Counted only once the batch is known to be acceptable; given back if the append is refused.
        if (!granted) {
          const agent = await this.agents.get(orgId, session.agentId);
          const limit = agent?.rateLimits.messagesPerMinute ?? 100;
          granted = await this.allowances.take({ orgId, agentId: session.agentId, subjectId: session.subjectId }, "messages", limit, events.length);
        }
        if (result.plan.wake) await this.sessions.markWake(sessionId);
        const applied = await this.log.apply(sessionId, result.plan, state.v);
        if (!applied.ok) continue;
        if (result.plan.wake) await publishWakeup(this.redis, this.log.keys, sessionId);
        if (result.plan.state.status && result.plan.state.status !== "deleted") {
          await this.sessions.setStatus(sessionId, result.plan.state.status, applied.version);
        }
        const persisted = new Set(result.persisted.map((d) => d.id));
        return { data: applied.envelopes.filter((e) => persisted.has(e.id)), headers: granted.headers };
      }
      throw new ApiError(503, "server_error", "the session is too busy to accept events right now; retry with exponential backoff");
    } catch (err) {
      if (granted) await granted.refund().catch((e: unknown) => this.logger.warn("allowance refund failed", { err: e }));
      throw err;
    }
  }

  async history(orgId: string, sessionId: string, after: number, limit: number): Promise<{ data: Envelope[]; hasMore: boolean }> {
    await this.sessionOf(orgId, sessionId);
    const page = await this.log.history(sessionId, after, limit + 1);
    return { data: page.slice(0, limit), hasMore: page.length > limit };
  }
}
