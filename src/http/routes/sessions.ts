/** Sessions endpoints and the sandbox prewarm hint. */
import type Router from "@koa/router";
import type { SessionCreateBody, SessionUpdateBody } from "../../services/sessions.js";
import type { SessionStatus } from "../../domain/session-state.js";
import type { Services } from "../context.js";
import { validationError } from "../../errors.js";
import { rateLimitHeaders } from "../errors.js";
import { presentOffsetPage, presentSession } from "../present.js";
import { principalOf, route } from "../route.js";

interface ListQuery {
  agentId?: string;
  agent?: string;
  subjectId?: string;
  subject?: string;
  status?: Exclude<SessionStatus, "waiting_on_human">;
  limit: number;
  offset: number;
}

/** Rule 4: an alias given with its main parameter must agree with it. */
function aliased(main: string | undefined, alias: string | undefined, name: string, aliasName: string): string | undefined {
  if (main !== undefined && alias !== undefined && main !== alias) throw validationError(`${aliasName}: must equal ${name} when both are given`);
  return main ?? alias;
}

export function sessionRoutes(router: Router, { sessions, validator }: Services): void {
  const tag = "Sessions";

  route(router, { method: "post", path: "/v1/sessions", summary: "Create a session", tag, body: "session-create.json", status: 201 }, async (ctx) => {
    const body = validator.body<SessionCreateBody>("session-create.json", ctx.request.body);
    const { view, rateLimit } = await sessions.create(principalOf(ctx).orgId, body);
    ctx.set(rateLimitHeaders(rateLimit));
    ctx.status = 201;
    ctx.body = presentSession(view);
  });

  route(router, { method: "get", path: "/v1/sessions", summary: "List sessions, newest first", tag, query: "sessions-list-query.json", status: 200 }, async (ctx) => {
    if (ctx.query.status === "waiting_on_human") throw validationError("status: waiting_on_human is not accepted as a filter");
    const q = validator.query<ListQuery>("sessions-list-query.json", ctx.query);
    const filter: { agentId?: string; subjectId?: string; status?: SessionStatus } = {};
    const agentId = aliased(q.agentId, q.agent, "agentId", "agent");
    const subjectId = aliased(q.subjectId, q.subject, "subjectId", "subject");
    if (agentId) filter.agentId = agentId;
    if (subjectId) filter.subjectId = subjectId;
    if (q.status) filter.status = q.status;
    ctx.body = presentOffsetPage(await sessions.list(principalOf(ctx).orgId, filter, q), q, presentSession);
  });

  route(router, { method: "get", path: "/v1/sessions/:sessionId", summary: "Get a session", tag, status: 200 }, async (ctx) => {
    ctx.body = presentSession(await sessions.get(principalOf(ctx).orgId, ctx.params.sessionId!));
  });

  route(router, { method: "post", path: "/v1/sessions/:sessionId", summary: "Update title, yoloMode or metadata", tag, body: "session-update.json", status: 200 }, async (ctx) => {
    const body = validator.body<SessionUpdateBody>("session-update.json", ctx.request.body);
    ctx.body = presentSession(await sessions.update(principalOf(ctx).orgId, ctx.params.sessionId!, body));
  });

  route(router, { method: "post", path: "/v1/sessions/:sessionId/archive", summary: "Archive a session (idempotent)", tag, status: 200 }, async (ctx) => {
    ctx.body = presentSession(await sessions.archive(principalOf(ctx).orgId, ctx.params.sessionId!));
  });

  route(router, { method: "delete", path: "/v1/sessions/:sessionId", summary: "Delete a session and its event log", tag, status: 200 }, async (ctx) => {
    const id = ctx.params.sessionId!;
    await sessions.delete(principalOf(ctx).orgId, id);
    ctx.body = { object: "agent.session_deleted", id, deleted: true };
  });

  route(router, { method: "post", path: "/v1/sandboxes/warm", summary: "Hint that a session for this agent and subject is coming", tag, body: "sandbox-warm.json", status: 202 }, async (ctx) => {
    const body = validator.body<{ agentId: string; subjectId: string }>("sandbox-warm.json", ctx.request.body);
    await sessions.warm(principalOf(ctx).orgId, body.agentId);
    ctx.status = 202;
    ctx.body = { object: "sandbox.warm", status: "warming", reason: null, agentId: body.agentId, subjectId: body.subjectId };
  });
}
