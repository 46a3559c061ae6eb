/**
 * A deployment's threads and what flows through them: create a thread, send events (a message, an
 * approval, an answer) and read history, the deployment's SSE stream, and files uploaded into its
 * workspace. Event bodies and frames are the core interface's, so one client reads both.
 */
import { deploymentEventsQuerySchema } from "../../../schemas/deployment-events-query.js";
import { deploymentFileSchema } from "../../../schemas/deployment-file.js";
import { deploymentFilePathSchema } from "../../../schemas/deployment-file-path.js";
import { deploymentPathSchema } from "../../../schemas/deployment-path.js";
import { deploymentThreadSchema } from "../../../schemas/deployment-thread.js";
import { deploymentThreadCreateSchema } from "../../../schemas/deployment-thread-create.js";
import { deploymentThreadListSchema } from "../../../schemas/deployment-thread-list.js";
import { deploymentPageQuerySchema } from "../../../schemas/deployment-page-query.js";
import { deploymentThreadPathSchema } from "../../../schemas/deployment-thread-path.js";
import { eventListSchema } from "../../../schemas/event-list.js";
import { eventsAcceptedSchema } from "../../../schemas/events-accepted.js";
import { eventsListQuerySchema } from "../../../schemas/events-list-query.js";
import { eventsPostSchema } from "../../../schemas/events-post.js";
import { AppError } from "../../errors.js";
import { decodeCursor } from "../../streaming/event-cursor.js";
import { MAX_UPLOAD_BYTES } from "../threads.js";
import type { SessionView } from "../../sessions/sessions.js";
import type { DeploymentServices } from "./context.js";
import { sentHeaders } from "../../http/errors.js";
import { presentEventPage } from "../../http/present.js";
import { readRawBody } from "../../http/request-body.js";
import type { Routes } from "../../http/route.js";
import { SseTransport, sseLimits } from "../../streaming/http/sse.js";

function presentThread(deploymentId: string, { doc, status, usage }: SessionView) {
  return {
    thread_id: doc._id,
    deployment_id: deploymentId,
    title: doc.title,
    status,
    metadata: doc.metadata,
    ...(usage ? { usage } : {}),
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
  };
}

export function deploymentThreadRoutes(routes: Routes, { threads, deployments, streams, openStreams, config, log }: DeploymentServices): void {
  const tag = "Threads";
  const sse = new SseTransport(streams, openStreams, sseLimits(config), log);

  routes.add(
    {
      method: "post",
      path: "/v1/deployments/:deployment_id/threads",
      operationId: "createThread",
      summary: "Start another thread with the deployment's agent",
      tag,
      scope: "deployments:write",
      params: deploymentPathSchema,
      body: deploymentThreadCreateSchema,
      success: { status: 201, schema: deploymentThreadSchema },
      errors: [409],
    },
    async ({ orgId, params, body }) => ({ status: 201, body: presentThread(params.deployment_id, await threads.create(orgId, params.deployment_id, body)) }),
  );

  routes.add(
    {
      method: "get",
      path: "/v1/deployments/:deployment_id/threads",
      operationId: "listThreads",
      summary: "The deployment's threads, newest first (its default thread, more threads, automation runs, dreams)",
      tag,
      scope: "deployments:read",
      params: deploymentPathSchema,
      query: deploymentPageQuerySchema,
      success: { status: 200, schema: deploymentThreadListSchema },
    },
    async ({ orgId, params, query }) => {
      const page = await threads.list(orgId, params.deployment_id, { limit: query.limit ?? 20, ...(query.cursor ? { cursor: query.cursor } : {}) });
      return { body: { data: page.items.map((v) => presentThread(params.deployment_id, v)), next_cursor: page.nextCursor } };
    },
  );

  routes.add(
    {
      method: "get",
      path: "/v1/deployments/:deployment_id/threads/:thread_id",
      operationId: "getThread",
      summary: "Get a thread",
      tag,
      scope: "deployments:read",
      params: deploymentThreadPathSchema,
      success: { status: 200, schema: deploymentThreadSchema },
    },
    async ({ orgId, params }) => ({ body: presentThread(params.deployment_id, (await threads.thread(orgId, params.deployment_id, params.thread_id)).view) }),
  );

  routes.add(
    {
      method: "post",
      path: "/v1/deployments/:deployment_id/threads/:thread_id/events",
      operationId: "sendThreadEvents",
      summary: "Send events to a thread: a message, an approval, an answer (bodies as in the core interface)",
      tag,
      scope: "deployments:write",
      params: deploymentThreadPathSchema,
      body: eventsPostSchema,
      success: { status: 202, schema: eventsAcceptedSchema, rateLimited: true },
      errors: [402, 409],
    },
    async ({ orgId, params, body, ceiling, once }) => {
      const sent = await threads.send(orgId, params.deployment_id, params.thread_id, body, ceiling, once);
      return { status: 202, body: { object: "list", data: sent.data }, headers: sentHeaders(sent) };
    },
  );

  routes.add(
    {
      method: "get",
      path: "/v1/deployments/:deployment_id/threads/:thread_id/events",
      operationId: "listThreadEvents",
      summary: "A thread's durable events in sequence order",
      tag,
      scope: "deployments:read",
      params: deploymentThreadPathSchema,
      query: eventsListQuerySchema,
      success: { status: 200, schema: eventListSchema },
    },
    async ({ orgId, params, query }) => {
      const after = query.after ?? 0;
      return { body: presentEventPage(await threads.history(orgId, params.deployment_id, params.thread_id, after, query.limit), after, query.limit) };
    },
  );

  routes.add(
    {
      method: "get",
      path: "/v1/deployments/:deployment_id/events",
      operationId: "streamDeploymentEvents",
      summary: "The deployment's event stream (Server-Sent Events): its default thread, or `thread_id`",
      tag,
      scope: "deployments:read",
      params: deploymentPathSchema,
      query: deploymentEventsQuerySchema,
      headers: [{ name: "Last-Event-ID", description: "The `id` of the last frame received from this stream: resume after it." }],
      success: { status: 200, stream: true },
      errors: [409],
    },
    async ({ orgId, params, query, ctx }) => {
      const d = await deployments.get(orgId, params.deployment_id);
      const threadId = query.thread_id ?? d.threadId;
      if (query.thread_id !== undefined) await threads.thread(orgId, d._id, threadId);
      else if (d.status !== "ready") throw new AppError("invalid_state", `the deployment is ${d.status}; its default thread streams once it is ready`);
      const lastEventId = ctx.get("last-event-id");
      const start = lastEventId ? decodeCursor(threadId, lastEventId) : query.after !== undefined ? { sequence: query.after, liveId: null } : null;
      await sse.stream(ctx, orgId, threadId, start);
      return undefined;
    },
  );

  routes.add(
    {
      method: "put",
      path: "/v1/deployments/:deployment_id/files/*path",
      operationId: "uploadDeploymentFile",
      summary:
        "Upload a file into the deployment's workspace (a skill file for `source: file`, or data its tools read); `path` is workspace-relative, its slashes percent-encoded or not",
      tag,
      scope: "deployments:write",
      params: deploymentFilePathSchema,
      success: { status: 200, schema: deploymentFileSchema },
    },
    async ({ orgId, params, ctx }) => {
      const bytes = await readRawBody(ctx.req, MAX_UPLOAD_BYTES);
      await threads.upload(orgId, params.deployment_id, params.path, bytes);
      return { body: { deployment_id: params.deployment_id, path: params.path, size: bytes.length } };
    },
  );
}
