/** Deployments endpoints: create, get, list, update, delete. */
import { deploymentCreateSchema } from "../../../schemas/deployment-create.js";
import { deploymentCreatedSchema } from "../../../schemas/deployment-created.js";
import { deploymentDeleteQuerySchema } from "../../../schemas/deployment-delete-query.js";
import { deploymentDeletedSchema } from "../../../schemas/deployment-deleted.js";
import { deploymentListSchema } from "../../../schemas/deployment-list.js";
import { deploymentListQuerySchema } from "../../../schemas/deployment-list-query.js";
import { deploymentPatchSchema } from "../../../schemas/deployment-patch.js";
import { deploymentPathSchema } from "../../../schemas/deployment-path.js";
import { deploymentSchema } from "../../../schemas/deployment.js";
import type { DeploymentServices } from "./context.js";
import { placementOf } from "./locations.js";
import { presentCreated, presentDeployment, presentSummary } from "./present.js";
import { keptReply, type Routes } from "../../http/route.js";

export function deploymentRoutes(routes: Routes, services: DeploymentServices): void {
  const { deployments } = services;
  const tag = "Deployments";

  routes.add(
    {
      method: "post",
      path: "/v1/deployments",
      operationId: "createDeployment",
      summary: "Create a deployment (answers `provisioning`; poll until `ready`)",
      tag,
      scope: "deployments:write",
      body: deploymentCreateSchema,
      success: { status: 201, schema: deploymentCreatedSchema },
      errors: [402, 422],
    },
    async ({ orgId, body, ctx, once }) => ({
      status: 201,
      ...keptReply(await deployments.createKept(orgId, body, once), (d) => presentCreated(d, placementOf(services, ctx))),
    }),
  );

  routes.add(
    {
      method: "get",
      path: "/v1/deployments/:deployment_id",
      operationId: "getDeployment",
      summary: "Get a deployment",
      tag,
      scope: "deployments:read",
      params: deploymentPathSchema,
      success: { status: 200, schema: deploymentSchema },
    },
    async ({ orgId, params, ctx }) => ({ body: presentDeployment(await deployments.get(orgId, params.deployment_id), placementOf(services, ctx)) }),
  );

  routes.add(
    {
      method: "get",
      path: "/v1/deployments",
      operationId: "listDeployments",
      summary: "List the account's deployments, newest first",
      tag,
      scope: "deployments:read",
      query: deploymentListQuerySchema,
      success: { status: 200, schema: deploymentListSchema },
    },
    async ({ orgId, query }) => {
      const page = await deployments.list(orgId, query);
      return { body: { data: page.items.map(presentSummary), next_cursor: page.nextCursor } };
    },
  );

  routes.add(
    {
      method: "patch",
      path: "/v1/deployments/:deployment_id",
      operationId: "updateDeployment",
      summary: "Update a deployment (scalars and arrays replaced, maps merged; applies to the next run)",
      tag,
      scope: "deployments:write",
      params: deploymentPathSchema,
      body: deploymentPatchSchema,
      success: { status: 200, schema: deploymentSchema },
      errors: [402, 409, 422],
    },
    async ({ orgId, params, body, ctx }) => ({
      body: presentDeployment(await deployments.update(orgId, params.deployment_id, body), placementOf(services, ctx)),
    }),
  );

  routes.add(
    {
      method: "delete",
      path: "/v1/deployments/:deployment_id",
      operationId: "deleteDeployment",
      summary: "Delete a deployment (its workspace kept 30 days with retain_filesystem)",
      tag,
      scope: "deployments:write",
      params: deploymentPathSchema,
      query: deploymentDeleteQuerySchema,
      success: { status: 200, schema: deploymentDeletedSchema },
    },
    async ({ orgId, params, query }) => {
      await deployments.remove(orgId, params.deployment_id, query.retain_filesystem ?? false);
      return { body: { deployment_id: params.deployment_id, status: "deleted" } };
    },
  );
}
