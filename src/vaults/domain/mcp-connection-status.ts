/**
 * The connection status of each MCP server of an agent's latest version, from the credentials of the
 * vaults attached to the agent. Pure: the caller passes only active credentials of active attached
 * vaults, what it knows of each (`CredentialFacts`), and the time.
 *
 * Decisions:
 * - A credential matches a server when their URLs normalize equal (`normalizeServerUrl`). A server or
 *   credential whose URL does not normalize matches nothing, so such a server is `public`.
 * - `conflict` when 2+ credentials match, whatever their state: which one to send is ambiguous, and
 *   the run time must not guess.
 * - With exactly one match: `unavailable` when its secret is not readable (its key is not loaded in
 *   this process: temporary, an operator fixes the key ring); else `reconnect` when a refresh was
 *   refused (`invalid`), or when it is OAuth, expired (`expiresAt <= now`) and not refreshable; else
 *   `connected`. An expired but refreshable OAuth token is connected: it is refreshed when the request
 *   runs. An OAuth credential without `expiresAt` is taken as not expired; an `expiresAt` that is not
 *   a date is taken as expired (nothing says the token is still good). A static bearer never expires.
 */
import { normalizeServerUrl } from "./mcp-server-url.js";
import type { agentVaultsSchema } from "../../../schemas/agent-vaults.js";

export type McpAuthType = "static_bearer" | "mcp_oauth";

export interface CredentialFacts {
  id: string;
  vaultId: string;
  mcpServerUrl: string;
  authType: McpAuthType;
  /** ISO timestamp: when the OAuth access token expires; null when unknown or not OAuth. */
  expiresAt: string | null;
  /** It has a refresh token and a token endpoint. */
  refreshable: boolean;
  /** Its secret can be decrypted with a key this process has. */
  readable: boolean;
  /** A refresh was refused by the token endpoint (`invalid_grant`). */
  invalid: boolean;
}

export interface McpServerRef {
  name: string;
  url: string;
}

/** The statuses the agent vaults response shows (the spec's table). */
export type McpConnectionStatus = (typeof agentVaultsSchema.properties.mcpServers.items.properties.status.enum)[number];

export interface McpServerStatus {
  serverName: string;
  url: string;
  status: McpConnectionStatus;
  /** The credential that matched, when exactly one did. */
  credentialId: string | null;
}

export type CredentialMatch<C> = { kind: "none" } | { kind: "one"; credential: C } | { kind: "many"; ids: string[] };

/** Every credential whose URL matches `serverUrl` (none when the server's URL does not normalize), in the order given. */
export function credentialsMatching<C extends Pick<CredentialFacts, "mcpServerUrl">>(serverUrl: string, credentials: readonly C[]): C[] {
  const server = normalizeServerUrl(serverUrl);
  return server === null ? [] : credentials.filter((c) => normalizeServerUrl(c.mcpServerUrl) === server);
}

/** The credentials whose URL matches `serverUrl`; `many` lists their ids sorted, whatever order the store read them in. */
export function matchCredential<C extends Pick<CredentialFacts, "id" | "mcpServerUrl">>(serverUrl: string, credentials: readonly C[]): CredentialMatch<C> {
  const matches = credentialsMatching(serverUrl, credentials);
  if (matches.length === 0) return { kind: "none" };
  if (matches.length === 1) return { kind: "one", credential: matches[0]! };
  return { kind: "many", ids: matches.map((c) => c.id).sort() };
}

/** Whether an OAuth access token is past its expiry at `now` (a token expiring exactly now is expired). */
export function isExpired(credential: Pick<CredentialFacts, "authType" | "expiresAt">, now: Date): boolean {
  if (credential.authType !== "mcp_oauth" || credential.expiresAt === null) return false;
  const at = Date.parse(credential.expiresAt);
  return Number.isNaN(at) || at <= now.getTime();
}

/** The status a server has when `credential` is the only one matching it. */
export function credentialStatus(credential: CredentialFacts, now: Date): "connected" | "reconnect" | "unavailable" {
  if (!credential.readable) return "unavailable";
  if (credential.invalid) return "reconnect";
  if (isExpired(credential, now) && !credential.refreshable) return "reconnect";
  return "connected";
}

/** The status of each server, in server order. */
export function connectionStatuses(servers: readonly McpServerRef[], credentials: readonly CredentialFacts[], now: Date): McpServerStatus[] {
  return servers.map((server) => {
    const base = { serverName: server.name, url: server.url };
    const match = matchCredential(server.url, credentials);
    switch (match.kind) {
      case "none":
        return { ...base, status: "public", credentialId: null };
      case "many":
        return { ...base, status: "conflict", credentialId: null };
      case "one":
        return { ...base, status: credentialStatus(match.credential, now), credentialId: match.credential.id };
    }
  });
}
