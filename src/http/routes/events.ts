/** Events endpoints: send, history, and the SSE stream. */
import type Router from "@koa/router";
import type { EventsPostBody } from "../../services/events.js";
import type { Services } from "../context.js";
import { principalOf, route } from "../route.js";
import { decodeCursor } from "../../services/event-stream.js";
import { rateLimitHeaders } from "../errors.js";
import { streamSession } from "../sse.js";

export function eventRoutes(router: Router, { events, validator, streams, config }: Services): void {
  const tag = "Events";

  route(router, { method: "post", path: "/v1/sessions/:sessionId/events", summary: "Send inbound events", tag, body: "events-post.json", status: 202 }, async (ctx) => {
    const body = validator.body<EventsPostBody>("events-post.json", ctx.request.body);
    const { data, rateLimit } = await events.post(principalOf(ctx).orgId, ctx.params.sessionId!, body);
    ctx.set(rateLimitHeaders(rateLimit));
    ctx.status = 202;
    ctx.body = { object: "list", data };
  });

  route(router, { method: "get", path: "/v1/sessions/:sessionId/events", summary: "List durable events in sequence order", tag, query: "events-list-query.json", status: 200 }, async (ctx) => {
    const q = validator.query<{ after?: number; limit: number }>("events-list-query.json", ctx.query);
    const after = q.after ?? 0;
    const page = await events.history(principalOf(ctx).orgId, ctx.params.sessionId!, after, q.limit);
    const last = page.data[page.data.length - 1];
    ctx.body = { object: "list", data: page.data, pagination: { after: last ? last.sequence : after, hasMore: page.hasMore, limit: q.limit } };
  });

  route(router, { method: "get", path: "/v1/sessions/:sessionId/events/stream", summary: "Stream events (Server-Sent Events)", tag, query: "events-stream-query.json", status: 200, stream: true }, async (ctx) => {
    const q = validator.query<{ after?: number }>("events-stream-query.json", ctx.query);
    const sessionId = ctx.params.sessionId!;
    await events.sessionOf(principalOf(ctx).orgId, sessionId);
    const lastEventId = ctx.get("last-event-id");
    const start = lastEventId ? decodeCursor(sessionId, lastEventId) : q.after !== undefined ? { sequence: q.after, liveId: null } : null;
    ctx.respond = false;
    await streamSession(ctx.res, streams, sessionId, start, config.sseKeepAliveMs);
  });
}
