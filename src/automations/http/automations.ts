/** Automations endpoints: per agent and subject, with pause, resume, trigger, and the runs' sessions. */
import { automationSchema } from "../../../schemas/automation.js";
import { automationCreateSchema } from "../../../schemas/automation-create.js";
import { automationListSchema } from "../../../schemas/automation-list.js";
import { automationPatchSchema } from "../../../schemas/automation-patch.js";
import { automationPathSchema } from "../../../schemas/automation-path.js";
import { automationRunSchema } from "../../../schemas/automation-run.js";
import { automationRunListSchema } from "../../../schemas/automation-run-list.js";
import { agentPathSchema } from "../../../schemas/agent-path.js";
import { deletedSchema } from "../../../schemas/deleted.js";
import { pageQuerySchema } from "../../../schemas/page-query.js";
import { sessionListSchema } from "../../../schemas/session-list.js";
import { subjectPathSchema } from "../../../schemas/subject-path.js";
import type { Services } from "../../http/context.js";
import { presentAutomation, presentOffsetPage, presentRun, presentSession } from "../../http/present.js";
import { keptReply, type Routes } from "../../http/route.js";

export function automationRoutes(routes: Routes, { automations }: Services): void {
  const tag = "Automations";
  const one = "/v1/agents/:agentId/users/:subjectId/automations/:automationId";
  const automationOk = { status: 200, schema: automationSchema };

  routes.add(
    {
      method: "get",
      path: "/v1/agents/:agentId/automations",
      operationId: "listAgentAutomations",
      summary: "List an agent's automations across all subjects, newest first",
      tag,
      params: agentPathSchema,
      query: pageQuerySchema,
      success: { status: 200, schema: automationListSchema },
    },
    async ({ orgId, params, query }) => ({
      body: presentOffsetPage(await automations.listOfAgent(orgId, { agentId: params.agentId }, query), query, presentAutomation),
    }),
  );

  routes.add(
    {
      method: "get",
      path: "/v1/agents/:agentId/users/:subjectId/automations",
      operationId: "listSubjectAutomations",
      summary: "List one subject's automations, newest first",
      tag,
      params: subjectPathSchema,
      query: pageQuerySchema,
      success: { status: 200, schema: automationListSchema },
    },
    async ({ orgId, params, query }) => ({ body: presentOffsetPage(await automations.listOfAgent(orgId, params, query), query, presentAutomation) }),
  );

  routes.add(
    {
      method: "post",
      path: "/v1/agents/:agentId/users/:subjectId/automations",
      operationId: "createAutomation",
      summary: "Create an automation: a prompt on a schedule for this subject",
      tag,
      params: subjectPathSchema,
      body: automationCreateSchema,
      success: { status: 201, schema: automationSchema },
      errors: [409],
    },
    async ({ orgId, params, body, once }) => keptReply(await automations.createKept(orgId, params.agentId, params.subjectId, body, once), presentAutomation),
  );

  routes.add(
    { method: "get", path: one, operationId: "getAutomation", summary: "Get an automation", tag, params: automationPathSchema, success: automationOk },
    async ({ orgId, params }) => ({ body: presentAutomation(await automations.get(orgId, params)) }),
  );

  routes.add(
    {
      method: "patch",
      path: one,
      operationId: "updateAutomation",
      summary: "Change any subset of an automation's fields (repeat: null removes the limit)",
      tag,
      params: automationPathSchema,
      body: automationPatchSchema,
      success: automationOk,
      errors: [409],
    },
    async ({ orgId, params, body }) => ({ body: presentAutomation(await automations.patch(orgId, params, body)) }),
  );

  routes.add(
    {
      method: "delete",
      path: one,
      operationId: "deleteAutomation",
      summary: "Delete an automation: no future runs; past sessions stay",
      tag,
      params: automationPathSchema,
      success: { status: 200, schema: deletedSchema },
    },
    async ({ orgId, params }) => {
      await automations.delete(orgId, params);
      return { body: { object: "automation.deleted", id: params.automationId, deleted: true } };
    },
  );

  routes.add(
    {
      method: "post",
      path: `${one}/pause`,
      operationId: "pauseAutomation",
      summary: "Pause scheduled occurrences (idempotent)",
      tag,
      params: automationPathSchema,
      success: automationOk,
      errors: [409],
    },
    async ({ orgId, params }) => ({ body: presentAutomation(await automations.setPaused(orgId, params, true)) }),
  );

  routes.add(
    {
      method: "post",
      path: `${one}/resume`,
      operationId: "resumeAutomation",
      summary: "Resume: the next eligible occurrence from now (idempotent)",
      tag,
      params: automationPathSchema,
      success: automationOk,
      errors: [409],
    },
    async ({ orgId, params }) => ({ body: presentAutomation(await automations.setPaused(orgId, params, false)) }),
  );

  routes.add(
    {
      method: "post",
      path: `${one}/trigger`,
      operationId: "triggerAutomation",
      summary: "Run the automation now in a fresh session; nextRunAt is unchanged",
      tag,
      params: automationPathSchema,
      success: { status: 200, schema: automationRunSchema },
      errors: [409],
    },
    async ({ orgId, params }) => ({ body: presentRun(await automations.trigger(orgId, params)) }),
  );

  routes.add(
    {
      method: "get",
      path: `${one}/sessions`,
      operationId: "listAutomationSessions",
      summary: "The fresh sessions the automation's runs created, newest first",
      tag,
      params: automationPathSchema,
      query: pageQuerySchema,
      success: { status: 200, schema: sessionListSchema },
    },
    async ({ orgId, params, query }) => ({ body: presentOffsetPage(await automations.sessionsOf(orgId, params, query), query, presentSession) }),
  );

  routes.add(
    {
      method: "get",
      path: `${one}/runs`,
      operationId: "listAutomationRuns",
      summary: "The automation's runs, scheduled and manual, with each one's status and failure reason",
      tag,
      params: automationPathSchema,
      query: pageQuerySchema,
      success: { status: 200, schema: automationRunListSchema },
    },
    async ({ orgId, params, query }) => ({ body: presentOffsetPage(await automations.runs(orgId, params, query), query, presentRun) }),
  );
}
