/** Events endpoints: send, history, and the SSE stream. */
import type Router from "@koa/router";
import type { EventsPostBody } from "../../services/events.js";
import type { Services } from "../context.js";
import { principalOf, route } from "../route.js";
import { decodeCursor, streamSession } from "../sse.js";

export function eventRoutes(router: Router, { events, validator, eventLog, streamReader, config }: Services): void {
  const tag = "Events";

  route(router, { method: "post", path: "/v1/sessions/:sessionId/events", summary: "Send inbound events", tag, body: "events-post.json", status: 202 }, async (ctx) => {
    const body = validator.body<EventsPostBody>("events-post.json", ctx.request.body);
    const { data, headers } = await events.post(principalOf(ctx).orgId, ctx.params.sessionId!, body);
    ctx.set(headers);
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
    const lastEventId = ctx.get("last-event-id");
    const start = lastEventId ? decodeCursor(lastEventId) : q.after !== undefined ? { sequence: q.after, liveId: null } : null;
    const sessionId = ctx.params.sessionId!;
    await events.sessionOf(principalOf(ctx).orgId, sessionId);
    ctx.respond = false;
    await streamSession(ctx.res, sessionId, start, { log: eventLog, reader: streamReader(), keepAliveMs: config.sseKeepAliveMs });
  });
}
