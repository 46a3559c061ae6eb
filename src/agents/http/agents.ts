/** Agents endpoints: declared with their schemas; each handler is parse → service → present. */
import { agentSchema } from "../../../schemas/agent.js";
import { agentCreateSchema } from "../../../schemas/agent-create.js";
import { agentListSchema } from "../../../schemas/agent-list.js";
import { agentPatchSchema } from "../../../schemas/agent-patch.js";
import { agentPathSchema } from "../../../schemas/agent-path.js";
import { agentRateLimitsPatchSchema } from "../../../schemas/agent-rate-limits-patch.js";
import { agentSubjectBudgetPutSchema } from "../../../schemas/agent-subject-budget-put.js";
import { agentVersionSchema } from "../../../schemas/agent-version.js";
import { agentVersionListSchema } from "../../../schemas/agent-version-list.js";
import { agentsListQuerySchema } from "../../../schemas/agents-list-query.js";
import { deletedSchema } from "../../../schemas/deleted.js";
import { versionPathSchema } from "../../../schemas/version-path.js";
import { pageQuerySchema } from "../../../schemas/page-query.js";
import { subjectPathSchema } from "../../../schemas/subject-path.js";
import { subjectSpendSchema } from "../../../schemas/subject-spend.js";
import type { Services } from "../../http/context.js";
import { presentAgent, presentOffsetPage, presentVersion } from "../../http/present.js";
import { keptReply, type Routes } from "../../http/route.js";

export function agentRoutes(routes: Routes, { agents }: Services): void {
  const tag = "Agents";
  const agentOk = { status: 200, schema: agentSchema };

  routes.add(
    {
      method: "post",
      path: "/v1/agents",
      operationId: "createAgent",
      summary: "Create an agent and its first version",
      tag,
      body: agentCreateSchema,
      success: { status: 201, schema: agentSchema },
    },
    async ({ orgId, body, once }) => keptReply(await agents.createKept(orgId, body, once), presentAgent),
  );

  routes.add(
    {
      method: "get",
      path: "/v1/agents",
      operationId: "listAgents",
      summary: "List agents, newest first",
      tag,
      query: agentsListQuerySchema,
      success: { status: 200, schema: agentListSchema },
    },
    async ({ orgId, query }) => ({ body: presentOffsetPage(await agents.list(orgId, query), query, presentAgent) }),
  );

  routes.add(
    {
      method: "get",
      path: "/v1/agents/:agentId",
      operationId: "getAgent",
      summary: "Get an agent with its latest version",
      tag,
      params: agentPathSchema,
      success: agentOk,
    },
    async ({ orgId, params }) => ({ body: presentAgent(await agents.get(orgId, params.agentId)) }),
  );

  routes.add(
    {
      method: "post",
      path: "/v1/agents/:agentId",
      operationId: "replaceAgent",
      summary: "Replace an agent's configuration (new version)",
      tag,
      params: agentPathSchema,
      body: agentCreateSchema,
      success: agentOk,
      errors: [409],
    },
    async ({ orgId, params, body }) => ({ body: presentAgent(await agents.replace(orgId, params.agentId, body)) }),
  );

  routes.add(
    {
      method: "patch",
      path: "/v1/agents/:agentId",
      operationId: "updateAgent",
      summary: "Update an agent by upsert (new version)",
      tag,
      params: agentPathSchema,
      body: agentPatchSchema,
      success: agentOk,
      errors: [409],
    },
    async ({ orgId, params, body }) => ({ body: presentAgent(await agents.patch(orgId, params.agentId, body)) }),
  );

  routes.add(
    {
      method: "delete",
      path: "/v1/agents/:agentId",
      operationId: "deleteAgent",
      summary: "Delete an agent that has no sessions",
      tag,
      params: agentPathSchema,
      success: { status: 200, schema: deletedSchema },
      errors: [409],
    },
    async ({ orgId, params }) => {
      await agents.delete(orgId, params.agentId);
      return { body: { object: "agent.deleted", id: params.agentId, deleted: true } };
    },
  );

  routes.add(
    {
      method: "post",
      path: "/v1/agents/:agentId/archive",
      operationId: "archiveAgent",
      summary: "Archive an agent (idempotent)",
      tag,
      params: agentPathSchema,
      success: agentOk,
      errors: [409],
    },
    async ({ orgId, params }) => ({ body: presentAgent(await agents.archive(orgId, params.agentId)) }),
  );

  routes.add(
    {
      method: "patch",
      path: "/v1/agents/:agentId/rate-limits",
      operationId: "updateAgentRateLimits",
      summary: "Change an agent's allowances (no new version)",
      tag,
      params: agentPathSchema,
      body: agentRateLimitsPatchSchema,
      success: agentOk,
    },
    async ({ orgId, params, body }) => ({ body: presentAgent(await agents.setRateLimits(orgId, params.agentId, body)) }),
  );

  routes.add(
    {
      method: "put",
      path: "/v1/agents/:agentId/subject-budget",
      operationId: "setAgentSubjectBudget",
      summary: "Set an agent's spend limit per subject (no new version)",
      tag,
      params: agentPathSchema,
      body: agentSubjectBudgetPutSchema,
      success: agentOk,
    },
    async ({ orgId, params, body }) => ({ body: presentAgent(await agents.setSubjectBudget(orgId, params.agentId, body.limitUsd)) }),
  );

  routes.add(
    {
      method: "get",
      path: "/v1/agents/:agentId/users/:subjectId/spend",
      operationId: "getSubjectSpend",
      summary: "What one subject has spent with an agent, beside its limit",
      tag,
      params: subjectPathSchema,
      success: { status: 200, schema: subjectSpendSchema },
    },
    async ({ orgId, params }) => ({ body: { ...params, ...(await agents.subjectSpend(orgId, params.agentId, params.subjectId)) } }),
  );

  routes.add(
    {
      method: "get",
      path: "/v1/agents/:agentId/versions",
      operationId: "listAgentVersions",
      summary: "List an agent's versions, newest first",
      tag,
      params: agentPathSchema,
      query: pageQuerySchema,
      success: { status: 200, schema: agentVersionListSchema },
    },
    async ({ orgId, params, query }) => ({ body: presentOffsetPage(await agents.listVersions(orgId, params.agentId, query), query, presentVersion) }),
  );

  routes.add(
    {
      method: "get",
      path: "/v1/agents/:agentId/versions/:version",
      operationId: "getAgentVersion",
      summary: "Get one version by number",
      tag,
      params: versionPathSchema,
      success: { status: 200, schema: agentVersionSchema },
    },
    async ({ orgId, params }) => ({ body: presentVersion(await agents.getVersion(orgId, params.agentId, params.version)) }),
  );
}
