/**
 * The rules of an MCP installation (docs/decisions/vaults-and-mcp.md, "MCP installations"): the configuration
 * change it makes, and whether the credentials already at the agent's disposal let its authentication
 * give the server the status it asks for. Pure functions, no I/O.
 */
import type { FromSchemas } from "../../../schemas/index.js";
import type { mcpInstallationCreateSchema } from "../../../schemas/mcp-installation-create.js";
import {
  applyPatch,
  referenceProblems,
  versionLimitProblems,
  type AgentConfig,
  type AgentPatchBody,
  type McpServer,
} from "../../agents/domain/agent-config.js";
import { serverUrlProblem } from "./mcp-server-url.js";

export type McpInstallationBody = FromSchemas<typeof mcpInstallationCreateSchema>;
export type InstallationAuthType = McpInstallationBody["authentication"]["type"];

/** The most vaults one agent may have attached: what a vault PUT accepts. */
export const MAX_ATTACHED_VAULTS = 20;
const MAX_DISPLAY_NAME = 200;

export function installedServer(body: McpInstallationBody): McpServer {
  return { type: "url", name: body.connector.name, url: body.connector.url };
}

/** A connector URL the schema let through that still cannot name a server (credentials in it, say). */
export function connectorProblems(body: McpInstallationBody): string[] {
  const problem = serverUrlProblem(body.connector.url);
  return problem ? [`connector.url: ${problem}`] : [];
}

export type InstallationConfig =
  { ok: true; config: AgentConfig } | { ok: false; kind: "conflict"; message: string } | { ok: false; kind: "invalid"; problems: string[] };

/**
 * The version after `current` with the server appended and its `mcp_toolset` appended to the top-level
 * tools (roles are left alone: a role lists its tools itself). A name already taken is refused rather
 * than replaced: replacing would silently drop the old server's toolset settings and credentials'
 * match; a full replace or PATCH is the way to change a server. The version limits hold as for a PATCH.
 */
export function installationConfig(current: AgentConfig, body: McpInstallationBody): InstallationConfig {
  const server = installedServer(body);
  if (current.mcpServers.some((s) => s.name === server.name)) {
    return {
      ok: false,
      kind: "conflict",
      message: `the agent already has an MCP server named ${server.name}; choose another name, or change that server with PATCH`,
    };
  }
  const change: AgentPatchBody = { mcpServers: [server], tools: [{ ...body.toolset, type: "mcp_toolset", mcpServerName: server.name }] };
  const config = applyPatch(current, change);
  const problems = [...referenceProblems(change, config.mcpServers), ...versionLimitProblems(config)];
  return problems.length > 0 ? { ok: false, kind: "invalid", problems } : { ok: true, config };
}

/** An active credential, in an active vault the server would draw on, whose URL matches the server's. */
export interface MatchingCredential {
  id: string;
  vaultId: string;
}

export type CredentialVerdict = { ok: true; credentialId: string | null } | { ok: false; kind: "conflict" | "invalid_state"; message: string };

const describe = (m: MatchingCredential) => `credential ${m.id} in vault ${m.vaultId}`;

/**
 * Whether the installation gives the server the status its authentication means, given `matches`: the
 * credentials of the agent's vaults (and of the target vault) that already match the server's URL,
 * this installation's own excluded. `none` means `public`: no credential may match. `existing_vault`
 * means `connected` through that vault: exactly one match, in it. `static_bearer` adds a credential,
 * so none may match already (two would make the server's status `conflict`).
 */
export function credentialVerdict(type: InstallationAuthType, vaultId: string | null, matches: readonly MatchingCredential[]): CredentialVerdict {
  const [first] = matches;
  switch (type) {
    case "none":
      if (!first) return { ok: true, credentialId: null };
      return {
        ok: false,
        kind: "conflict",
        message: `${describe(first)}, attached to the agent, matches this server's URL, so the server would not be public; install it with authentication existing_vault`,
      };
    case "static_bearer":
      if (!first) return { ok: true, credentialId: null };
      return {
        ok: false,
        kind: "conflict",
        message: `${describe(first)} already matches this server's URL, and two would put the server in conflict; rotate that credential, or install with authentication existing_vault`,
      };
    case "existing_vault": {
      const elsewhere = matches.find((m) => m.vaultId !== vaultId);
      if (elsewhere)
        return {
          ok: false,
          kind: "conflict",
          message: `${describe(elsewhere)}, attached to the agent, also matches this server's URL, and two would put the server in conflict`,
        };
      if (matches.length > 1)
        return { ok: false, kind: "conflict", message: `vault ${vaultId} holds ${matches.length} credentials matching this server's URL; archive all but one` };
      if (!first)
        return {
          ok: false,
          kind: "invalid_state",
          message: `vault ${vaultId} holds no active credential matching this server's URL; add one first, or install with authentication static_bearer`,
        };
      return { ok: true, credentialId: first.id };
    }
  }
}

/** The display name of the vault a `static_bearer` installation without `vaultId` creates. */
export function newVaultName(agentName: string, serverName: string): string {
  const suffix = ` · ${serverName}`;
  return agentName.slice(0, MAX_DISPLAY_NAME - suffix.length) + suffix;
}
