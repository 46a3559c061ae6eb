/** Events endpoints: send, history, and the SSE stream. */
import { eventListSchema } from "../../../schemas/event-list.js";
import { eventsAcceptedSchema } from "../../../schemas/events-accepted.js";
import { eventsListQuerySchema } from "../../../schemas/events-list-query.js";
import { eventsPostSchema } from "../../../schemas/events-post.js";
import { eventsStreamQuerySchema } from "../../../schemas/events-stream-query.js";
import { sessionPathSchema } from "../../../schemas/session-path.js";
import { decodeCursor } from "../../streaming/event-cursor.js";
import type { Services } from "../../http/context.js";
import { sentHeaders } from "../../http/errors.js";
import { presentEventPage } from "../../http/present.js";
import type { Routes } from "../../http/route.js";
import { SseTransport, sseLimits } from "../../streaming/http/sse.js";

export function eventRoutes(routes: Routes, { events, streams, openStreams, config, log }: Services): void {
  const tag = "Events";
  const sse = new SseTransport(streams, openStreams, sseLimits(config), log);

  routes.add(
    {
      method: "post",
      path: "/v1/sessions/:sessionId/events",
      operationId: "sendEvents",
      summary: "Send inbound events",
      tag,
      params: sessionPathSchema,
      body: eventsPostSchema,
      success: { status: 202, schema: eventsAcceptedSchema, rateLimited: true },
      errors: [409],
      ceilingWithFirstRead: true,
    },
    async ({ orgId, params, body, ceiling, once }) => {
      const sent = await events.post(orgId, params.sessionId, body, ceiling, once);
      return { body: { object: "list", data: sent.data }, headers: sentHeaders(sent) };
    },
  );

  routes.add(
    {
      method: "get",
      path: "/v1/sessions/:sessionId/events",
      operationId: "listEvents",
      summary: "List durable events in sequence order",
      tag,
      params: sessionPathSchema,
      query: eventsListQuerySchema,
      success: { status: 200, schema: eventListSchema },
    },
    async ({ orgId, params, query }) => {
      const after = query.after ?? 0;
      return { body: presentEventPage(await events.history(orgId, params.sessionId, after, query.limit), after, query.limit) };
    },
  );

  routes.add(
    {
      method: "get",
      path: "/v1/sessions/:sessionId/events/stream",
      operationId: "streamEvents",
      summary: "Stream events (Server-Sent Events)",
      tag,
      params: sessionPathSchema,
      query: eventsStreamQuerySchema,
      headers: [
        {
          name: "Last-Event-ID",
          description: "The `id` of the last frame received from this session's stream: resume after it (400 if another stream sent it).",
        },
      ],
      success: { status: 200, stream: true },
    },
    async ({ orgId, params, query, ctx }) => {
      const { sessionId } = params;
      await events.sessionOf(orgId, sessionId);
      const lastEventId = ctx.get("last-event-id");
      const start = lastEventId ? decodeCursor(sessionId, lastEventId) : query.after !== undefined ? { sequence: query.after, liveId: null } : null;
      await sse.stream(ctx, orgId, sessionId, start);
      return undefined;
    },
  );
}
