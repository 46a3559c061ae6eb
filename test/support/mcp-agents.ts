/** Agents with MCP servers, vaults holding their credentials, and sessions of those agents, made through the API. */
import { expect } from "chai";
import type { Client } from "./server.js";
import { agentBody } from "./server.js";

export const allowAll = { type: "always_allow" };
export const askAll = { type: "always_ask" };

export interface ServerRef {
  name: string;
  url: string;
}

export function mcpToolset(server: string, policy: Record<string, unknown> = allowAll, extra: Record<string, unknown> = {}) {
  return { type: "mcp_toolset", mcpServerName: server, defaultConfig: { enabled: true, permissionPolicy: policy }, ...extra };
}

/** An agent whose `mcpServers` are `servers` and whose tools are `tools` (by default a toolset per server, every tool allowed). */
export async function mcpAgent(
  api: Client,
  servers: ServerRef[],
  tools: unknown[] = servers.map((s) => mcpToolset(s.name)),
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await api.post("/v1/agents", agentBody({ mcpServers: servers.map((s) => ({ type: "url", ...s })), tools, ...extra }));
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body.id as string;
}

/** A vault holding a credential for each `auth`; returns its id and the credentials' ids. */
export async function vaultWith(api: Client, ...auths: Record<string, unknown>[]): Promise<{ vaultId: string; credentialIds: string[] }> {
  const vault = await api.post("/v1/vaults", { displayName: "MCP credentials" });
  expect(vault.status, JSON.stringify(vault.body)).to.equal(201);
  const credentialIds: string[] = [];
  for (const auth of auths) {
    const res = await api.post(`/v1/vaults/${vault.body.id}/credentials`, { displayName: auth.type, auth });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    credentialIds.push(res.body.id as string);
  }
  return { vaultId: vault.body.id as string, credentialIds };
}

/** Attaches the vaults to the agent (replacing its set). */
export async function attach(api: Client, agentId: string, ...vaultIds: string[]): Promise<void> {
  const current = await api.get(`/v1/agents/${agentId}/vaults`);
  const res = await api.put(`/v1/agents/${agentId}/vaults`, { vaultIds, expectedUpdatedAt: current.body.updatedAt });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}

/** The connection status of each of the agent's servers, by name. */
export async function statuses(api: Client, agentId: string): Promise<Record<string, string>> {
  const res = await api.get(`/v1/agents/${agentId}/vaults`);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return Object.fromEntries((res.body.mcpServers as { name: string; status: string }[]).map((s) => [s.name, s.status]));
}

export async function sessionOf(api: Client, agentId: string): Promise<string> {
  const res = await api.post("/v1/sessions", { agentId, subjectId: `subject-${Date.now()}-${Math.random()}` });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body.id as string;
}
