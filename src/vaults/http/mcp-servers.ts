/** Testing an agent's MCP server: a fresh connection with the vault credential, and its tools. */
import { mcpServerPathSchema } from "../../../schemas/mcp-server-path.js";
import { mcpServerTestSchema } from "../../../schemas/mcp-server-test.js";
import type { McpServerTestResult } from "../mcp-server-tests.js";
import type { Services } from "../../http/context.js";
import type { Routes } from "../../http/route.js";

function presentTest(t: McpServerTestResult) {
  return {
    object: "agent.mcp_server_test" as const,
    agentId: t.agentId,
    agentVersion: t.agentVersion,
    serverName: t.serverName,
    url: t.url,
    status: t.credentialId ? ("connected" as const) : ("public" as const),
    credentialId: t.credentialId,
    transport: t.transport,
    tools: t.tools.map((tool) => ({ name: tool.name, description: tool.description })),
    testedAt: t.testedAt.toISOString(),
  };
}

export function mcpServerRoutes(routes: Routes, { mcpServerTests }: Services): void {
  routes.add(
    {
      method: "post",
      path: "/v1/agents/:agentId/mcp/:serverName/test",
      operationId: "testAgentMcpServer",
      summary: "Connect to an MCP server of the agent's latest version with its vault credential and list its tools",
      tag: "Agents",
      params: mcpServerPathSchema,
      success: { status: 200, schema: mcpServerTestSchema },
      errors: [409, 502],
    },
    async ({ orgId, params }) => ({ body: presentTest(await mcpServerTests.test(orgId, params.agentId, params.serverName)) }),
  );
}
