/** An agent's vault attachments and the connection status of its MCP servers. */
import { agentPathSchema } from "../../../schemas/agent-path.js";
import { agentVaultsSchema } from "../../../schemas/agent-vaults.js";
import { agentVaultsPutSchema } from "../../../schemas/agent-vaults-put.js";
import type { AgentVaultsView } from "../agent-vaults.js";
import type { Services } from "../../http/context.js";
import { presentVault } from "../../http/present.js";
import type { Routes } from "../../http/route.js";

function presentAgentVaults(v: AgentVaultsView) {
  return {
    object: "agent.vaults" as const,
    agentId: v.agentId,
    updatedAt: v.updatedAt.toISOString(),
    vaults: v.vaults.map(presentVault),
    mcpServers: v.servers.map((s) => ({ name: s.serverName, url: s.url, status: s.status, credentialId: s.credentialId })),
  };
}

export function agentVaultRoutes(routes: Routes, { agentVaults }: Services): void {
  const tag = "Agents";
  const ok = { status: 200, schema: agentVaultsSchema };

  routes.add(
    {
      method: "get",
      path: "/v1/agents/:agentId/vaults",
      operationId: "getAgentVaults",
      summary: "Attached vaults, the agent's updatedAt, and its MCP servers' connection statuses",
      tag,
      params: agentPathSchema,
      success: ok,
    },
    async ({ orgId, params }) => ({ body: presentAgentVaults(await agentVaults.get(orgId, params.agentId)) }),
  );

  routes.add(
    {
      method: "put",
      path: "/v1/agents/:agentId/vaults",
      operationId: "replaceAgentVaults",
      summary: "Replace the whole set of attached vaults",
      tag,
      params: agentPathSchema,
      body: agentVaultsPutSchema,
      success: ok,
      errors: [409],
    },
    async ({ orgId, params, body }) => ({ body: presentAgentVaults(await agentVaults.replace(orgId, params.agentId, body)) }),
  );
}
