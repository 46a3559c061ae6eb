/** MCP installations: a server and its toolset published as a new agent version, with its authentication set up. */
import { agentPathSchema } from "../../../schemas/agent-path.js";
import { mcpInstallationSchema } from "../../../schemas/mcp-installation.js";
import { mcpInstallationCreateSchema } from "../../../schemas/mcp-installation-create.js";
import type { Installation } from "../mcp-installations.js";
import type { Services } from "../../http/context.js";
import { presentAgent } from "../../http/present.js";
import type { Routes } from "../../http/route.js";

/** Built field by field: the request's token is in nothing an installation answers. */
function presentInstallation(i: Installation) {
  return {
    object: "agent.mcp_installation" as const,
    agentId: i.agent._id,
    version: i.version,
    mcpServer: { type: i.mcpServer.type, name: i.mcpServer.name, url: i.mcpServer.url },
    authentication: { type: i.authentication.type, vaultId: i.authentication.vaultId, credentialId: i.authentication.credentialId },
    agent: presentAgent(i.agent),
  };
}

export function mcpInstallationRoutes(routes: Routes, { mcpInstallations }: Services): void {
  routes.add(
    {
      method: "post",
      path: "/v1/agents/:agentId/mcp/installations",
      operationId: "installAgentMcpServer",
      summary: "Install an MCP server on an agent (new version), with its authentication",
      tag: "Agents",
      params: agentPathSchema,
      body: mcpInstallationCreateSchema,
      success: { status: 201, schema: mcpInstallationSchema },
      errors: [409],
    },
    async ({ orgId, params, body }) => ({ body: presentInstallation(await mcpInstallations.install(orgId, params.agentId, body)) }),
  );
}
