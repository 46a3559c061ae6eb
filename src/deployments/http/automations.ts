/**
 * A deployment's automations: the core interface's automations of its agent for its customer, with the
 * same bodies and answers, reached through the deployment. `features.automations: false` refuses new
 * ones (`409 invalid_state`) and makes every run fail with that reason until it is turned on again.
 */
import { automationCreateSchema } from "../../../schemas/automation-create.js";
import { automationListSchema } from "../../../schemas/automation-list.js";
import { automationPatchSchema } from "../../../schemas/automation-patch.js";
import { automationRunSchema } from "../../../schemas/automation-run.js";
import { automationRunListSchema } from "../../../schemas/automation-run-list.js";
import { automationSchema } from "../../../schemas/automation.js";
import { deletedSchema } from "../../../schemas/deleted.js";
import { deploymentAutomationPathSchema } from "../../../schemas/deployment-automation-path.js";
import { deploymentPathSchema } from "../../../schemas/deployment-path.js";
import { pageQuerySchema } from "../../../schemas/page-query.js";
import type { DeploymentServices } from "./context.js";
import { presentAutomation, presentOffsetPage, presentRun } from "../../http/present.js";
import { keptReply, type Routes } from "../../http/route.js";

export function deploymentAutomationRoutes(routes: Routes, { automations, deployments }: DeploymentServices): void {
  const tag = "Automations";
  const one = "/v1/deployments/:deployment_id/automations/:automation_id";
  /** The automation's reference under the deployment's agent and customer. */
  const refOf = async (orgId: string, p: { deployment_id: string; automation_id: string }) => {
    const d = await deployments.get(orgId, p.deployment_id);
    return { agentId: d.agentId, subjectId: d.customerId, automationId: p.automation_id };
  };

  routes.add(
    {
      method: "post",
      path: "/v1/deployments/:deployment_id/automations",
      operationId: "createDeploymentAutomation",
      summary: "Create an automation: a prompt on a schedule, run in a fresh thread",
      tag,
      scope: "deployments:write",
      params: deploymentPathSchema,
      body: automationCreateSchema,
      success: { status: 201, schema: automationSchema },
      errors: [409],
    },
    async ({ orgId, params, body, once }) => {
      const d = await deployments.get(orgId, params.deployment_id);
      return { status: 201, ...keptReply(await automations.createKept(orgId, d.agentId, d.customerId, body, once), presentAutomation) };
    },
  );
  routes.add(
    {
      method: "get",
      path: "/v1/deployments/:deployment_id/automations",
      operationId: "listDeploymentAutomations",
      summary: "The deployment's automations, newest first",
      tag,
      scope: "deployments:read",
      params: deploymentPathSchema,
      query: pageQuerySchema,
      success: { status: 200, schema: automationListSchema },
    },
    async ({ orgId, params, query }) => {
      const d = await deployments.get(orgId, params.deployment_id);
      return { body: presentOffsetPage(await automations.list(orgId, { agentId: d.agentId, subjectId: d.customerId }, query), query, presentAutomation) };
    },
  );
  routes.add(
    {
      method: "get",
      path: one,
      operationId: "getDeploymentAutomation",
      summary: "Get an automation",
      tag,
      scope: "deployments:read",
      params: deploymentAutomationPathSchema,
      success: { status: 200, schema: automationSchema },
    },
    async ({ orgId, params }) => ({ body: presentAutomation(await automations.get(orgId, await refOf(orgId, params))) }),
  );
  routes.add(
    {
      method: "patch",
      path: one,
      operationId: "updateDeploymentAutomation",
      summary: "Change any subset of an automation's fields",
      tag,
      scope: "deployments:write",
      params: deploymentAutomationPathSchema,
      body: automationPatchSchema,
      success: { status: 200, schema: automationSchema },
      errors: [409],
    },
    async ({ orgId, params, body }) => ({ body: presentAutomation(await automations.patch(orgId, await refOf(orgId, params), body)) }),
  );
  routes.add(
    {
      method: "delete",
      path: one,
      operationId: "deleteDeploymentAutomation",
      summary: "Delete an automation: no future runs; past threads stay",
      tag,
      scope: "deployments:write",
      params: deploymentAutomationPathSchema,
      success: { status: 200, schema: deletedSchema },
    },
    async ({ orgId, params }) => {
      await automations.delete(orgId, await refOf(orgId, params));
      return { body: { object: "automation.deleted", id: params.automation_id, deleted: true } };
    },
  );
  routes.add(
    {
      method: "post",
      path: `${one}/trigger`,
      operationId: "triggerDeploymentAutomation",
      summary: "Run the automation now in a fresh thread",
      tag,
      scope: "deployments:write",
      params: deploymentAutomationPathSchema,
      success: { status: 200, schema: automationRunSchema },
      errors: [409],
    },
    async ({ orgId, params }) => ({ body: presentRun(await automations.trigger(orgId, await refOf(orgId, params))) }),
  );
  routes.add(
    {
      method: "get",
      path: `${one}/runs`,
      operationId: "listDeploymentAutomationRuns",
      summary: "The automation's runs, with each one's status and failure reason",
      tag,
      scope: "deployments:read",
      params: deploymentAutomationPathSchema,
      query: pageQuerySchema,
      success: { status: 200, schema: automationRunListSchema },
    },
    async ({ orgId, params, query }) => ({ body: presentOffsetPage(await automations.runs(orgId, await refOf(orgId, params), query), query, presentRun) }),
  );
}
