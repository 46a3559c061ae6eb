/**
 * Testing an MCP server of an agent's latest version: a fresh connection with the credential the
 * agent's vaults hold for it now, and its tool list. What cannot be tested says why with the code a
 * caller can act on: several matching credentials are `409` (fix the vaults), a key this process lacks
 * `503`, and a server that cannot be reached, refuses the credential or fails to list `502`.
 */
import { notFound } from "../errors.js";
import type { AgentStore } from "../agents/store/agents.js";
import type { McpToolInfo, McpTransport } from "./mcp/mcp-connections.js";
import type { McpAccess } from "./mcp-access.js";

export interface McpServerTestResult {
  agentId: string;
  agentVersion: number;
  serverName: string;
  url: string;
  credentialId: string | null;
  transport: McpTransport;
  tools: McpToolInfo[];
  testedAt: Date;
}

export class McpServerTests {
  constructor(
    private readonly agents: AgentStore,
    private readonly access: McpAccess,
  ) {}

  async test(orgId: string, agentId: string, serverName: string): Promise<McpServerTestResult> {
    const agent = await this.agents.get(orgId, agentId);
    if (!agent) throw notFound("agent");
    const server = agent.current.mcpServers.find((s) => s.name === serverName);
    if (!server) throw notFound(`MCP server ${serverName} of the agent's latest version`);
    const probed = await this.access.probe({ orgId, agentId }, server);
    return {
      agentId,
      agentVersion: agent.version,
      serverName,
      url: server.url,
      credentialId: probed.credential?._id ?? null,
      transport: probed.transport,
      tools: probed.tools,
      testedAt: new Date(),
    };
  }
}
