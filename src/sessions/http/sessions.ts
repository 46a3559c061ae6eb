/** Sessions endpoints and the sandbox prewarm hint. */
import { deletedSchema } from "../../../schemas/deleted.js";
import { sandboxWarmSchema } from "../../../schemas/sandbox-warm.js";
import { sandboxWarmResultSchema } from "../../../schemas/sandbox-warm-result.js";
import { sessionCompactionSchema } from "../../../schemas/session-compaction.js";
import { sessionSchema } from "../../../schemas/session.js";
import { sessionCreateSchema } from "../../../schemas/session-create.js";
import { sessionForkSchema } from "../../../schemas/session-fork.js";
import { sessionListSchema } from "../../../schemas/session-list.js";
import { sessionPathSchema } from "../../../schemas/session-path.js";
import { sessionUpdateSchema } from "../../../schemas/session-update.js";
import { sessionsListQuerySchema } from "../../../schemas/sessions-list-query.js";
import { validationError } from "../../errors.js";
import { keptId } from "../../idempotency/index.js";
import type { SessionFilter } from "../store/sessions.js";
import type { Services } from "../../http/context.js";
import { sentHeaders } from "../../http/errors.js";
import { presentOffsetPage, presentSession } from "../../http/present.js";
import type { Routes } from "../../http/route.js";

/** Rule 4: an alias given with its main parameter must agree with it. */
function aliased(main: string | undefined, alias: string | undefined, name: string, aliasName: string): string | undefined {
  if (main !== undefined && alias !== undefined && main !== alias) throw validationError(`${aliasName}: must equal ${name} when both are given`);
  return main ?? alias;
}

export function sessionRoutes(routes: Routes, { sessions, forks }: Services): void {
  const tag = "Sessions";
  const sessionOk = { status: 200, schema: sessionSchema };

  routes.add(
    {
      method: "post",
      path: "/v1/sessions",
      operationId: "createSession",
      summary: "Create a session",
      tag,
      body: sessionCreateSchema,
      success: { status: 201, schema: sessionSchema, rateLimited: true },
      errors: [404, 409],
    },
    async ({ orgId, body, once }) => {
      // Under an Idempotency-Key the id is the key's: a retry after a first attempt that made the session and died finds it.
      const { view, rateLimit } = (await sessions.createKept(orgId, body, keptId("ses", once))).value;
      return { body: presentSession(view), headers: sentHeaders(rateLimit ? { rateLimit } : { replayed: true }) };
    },
  );

  routes.add(
    {
      method: "get",
      path: "/v1/sessions",
      operationId: "listSessions",
      summary: "List sessions, newest first",
      tag,
      query: sessionsListQuerySchema,
      success: { status: 200, schema: sessionListSchema },
    },
    async ({ orgId, query }) => {
      const filter: SessionFilter = {};
      const agentId = aliased(query.agentId, query.agent, "agentId", "agent");
      const subjectId = aliased(query.subjectId, query.subject, "subjectId", "subject");
      if (agentId) filter.agentId = agentId;
      if (subjectId) filter.subjectId = subjectId;
      if (query.status && query.waitingOnHuman) throw validationError("waitingOnHuman: must not be given with status");
      if (query.status) filter.status = query.status;
      if (query.waitingOnHuman) filter.status = "waiting_on_human";
      return { body: presentOffsetPage(await sessions.list(orgId, filter, query), query, presentSession) };
    },
  );

  routes.add(
    { method: "get", path: "/v1/sessions/:sessionId", operationId: "getSession", summary: "Get a session", tag, params: sessionPathSchema, success: sessionOk },
    async ({ orgId, params }) => ({ body: presentSession(await sessions.get(orgId, params.sessionId)) }),
  );

  routes.add(
    {
      method: "post",
      path: "/v1/sessions/:sessionId",
      operationId: "updateSession",
      summary: "Update title, yoloMode, metadata or budget",
      tag,
      params: sessionPathSchema,
      body: sessionUpdateSchema,
      success: sessionOk,
    },
    async ({ orgId, params, body }) => ({ body: presentSession(await sessions.update(orgId, params.sessionId, body)) }),
  );

  routes.add(
    {
      method: "post",
      path: "/v1/sessions/:sessionId/archive",
      operationId: "archiveSession",
      summary: "Archive a session (idempotent)",
      tag,
      params: sessionPathSchema,
      success: sessionOk,
      errors: [409],
    },
    async ({ orgId, params }) => ({ body: presentSession(await sessions.archive(orgId, params.sessionId)) }),
  );

  routes.add(
    {
      method: "post",
      path: "/v1/sessions/:sessionId/fork",
      operationId: "forkSession",
      summary: "Fork a session: a new session whose history is the original's up to an idle point",
      tag,
      params: sessionPathSchema,
      body: sessionForkSchema,
      success: { status: 201, schema: sessionSchema, rateLimited: true },
      errors: [404, 409],
    },
    async ({ orgId, params, body, once }) => {
      // Under an Idempotency-Key the new id is the key's, as for a create.
      const { view, rateLimit } = (await forks.forkKept(orgId, params.sessionId, body, keptId("ses", once))).value;
      return { body: presentSession(view), headers: sentHeaders(rateLimit ? { rateLimit } : { replayed: true }) };
    },
  );

  routes.add(
    {
      method: "post",
      path: "/v1/sessions/:sessionId/compact",
      operationId: "compactSession",
      summary: "Ask for the session's conversation context to be compacted (summarized) by a worker",
      tag,
      params: sessionPathSchema,
      success: { status: 202, schema: sessionCompactionSchema },
      errors: [409],
    },
    async ({ orgId, params }) => {
      await sessions.compact(orgId, params.sessionId);
      return { body: { object: "session.compaction", sessionId: params.sessionId, status: "requested" } };
    },
  );

  routes.add(
    {
      method: "delete",
      path: "/v1/sessions/:sessionId",
      operationId: "deleteSession",
      summary: "Delete a session and its event log",
      tag,
      params: sessionPathSchema,
      success: { status: 200, schema: deletedSchema },
      errors: [409, 502],
    },
    async ({ orgId, params }) => {
      await sessions.delete(orgId, params.sessionId);
      return { body: { object: "agent.session_deleted", id: params.sessionId, deleted: true } };
    },
  );

  routes.add(
    {
      method: "post",
      path: "/v1/sandboxes/warm",
      operationId: "warmSandbox",
      summary: "Hint that a session for this agent and subject is coming",
      tag,
      body: sandboxWarmSchema,
      success: { status: 202, schema: sandboxWarmResultSchema },
      errors: [404, 409],
    },
    async ({ orgId, body }) => {
      const reason = await sessions.warm(orgId, body.agentId, body.subjectId);
      return { body: { object: "sandbox.warm", status: "warming", reason, agentId: body.agentId, subjectId: body.subjectId } };
    },
  );
}
