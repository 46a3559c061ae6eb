/** `client.sessions`: sessions (one per subject and agent), and the turn helpers over their events. */
import type { Api } from "../api.js";
import { offsetPages } from "../pagination.js";
import { init, ok, type Body, type Query, type RequestOptions } from "../request.js";
import type { EventsResource } from "./events.js";

export function sessionsResource(api: Api, events: EventsResource) {
  const path = (sessionId: string) => ({ path: { sessionId } });
  return {
    create: (body: Body<"createSession">, options?: RequestOptions) => ok(api.POST("/v1/sessions", { body, ...init(options) })),
    get: (sessionId: string, options?: RequestOptions) => ok(api.GET("/v1/sessions/{sessionId}", { params: path(sessionId), ...init(options) })),
    /** Filtered by agent, subject or status; awaited the first page, `for await` every session. */
    list: (query: Query<"listSessions"> = {}, options?: RequestOptions) =>
      offsetPages((offset) => ok(api.GET("/v1/sessions", { params: { query: { ...query, ...(offset !== undefined ? { offset } : {}) } }, ...init(options) }))),
    /** Title, yoloMode, metadata or budget. */
    update: (sessionId: string, body: Body<"updateSession">, options?: RequestOptions) =>
      ok(api.POST("/v1/sessions/{sessionId}", { params: path(sessionId), body, ...init(options) })),
    archive: (sessionId: string, options?: RequestOptions) => ok(api.POST("/v1/sessions/{sessionId}/archive", { params: path(sessionId), ...init(options) })),
    delete: (sessionId: string, options?: RequestOptions) => ok(api.DELETE("/v1/sessions/{sessionId}", { params: path(sessionId), ...init(options) })),
    /** A new session whose history is this one's up to `atSequence` (default: all of it), which must be an idle point. */
    fork: (sessionId: string, body: Body<"forkSession"> = {}, options?: RequestOptions) =>
      ok(api.POST("/v1/sessions/{sessionId}/fork", { params: path(sessionId), body, ...init(options) })),
    /** Summarizes the conversation so far (before the next model call when a turn runs). */
    compact: (sessionId: string, options?: RequestOptions) => ok(api.POST("/v1/sessions/{sessionId}/compact", { params: path(sessionId), ...init(options) })),
    sendAndStream: events.sendAndStream,
    sendAndWait: events.sendAndWait,
  };
}
export type SessionsResource = ReturnType<typeof sessionsResource>;
