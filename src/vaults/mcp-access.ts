/**
 * An agent's MCP servers at run time: the credential each request needs, resolved when the request is
 * made (from the vaults attached to the agent, matched by normalized URL as the status computation
 * matches them), an OAuth access token refreshed when it has expired or the server refused it, and
 * the server's tools offered to the model and called through the worker's connection pool.
 *
 * The secret travels only in the `Authorization` header the pool sends; messages name the server and
 * the credential's id, never a value.
 */
import type { McpToolset, ToolConfig } from "../agents/domain/agent-config.js";
import { matchCredential, type McpServerRef } from "./domain/mcp-connection-status.js";
import { mcpToolOf, offeredMcpTools, readToolOf } from "./domain/mcp-tools.js";
import type { McpOffer } from "../worker/domain/turn-prompt.js";
import { AppError, conflict, unavailable } from "../errors.js";
import { activeCredentialsIn } from "./active-credentials.js";
import type { Logger } from "../log.js";
import { Lru } from "../lru.js";
import type { Locks } from "../redis/locks.js";
import type { AgentVaultStore } from "./store/agent-vaults.js";
import type { CredentialDoc, CredentialSecrets, CredentialStore } from "./store/vault-credentials.js";
import type { VaultStore } from "./store/vaults.js";
import type { McpCallOutcome, McpConnections, McpEndpoint, McpToolInfo, McpTransport } from "./mcp/mcp-connections.js";
import { RefreshFailed, refreshAccessToken, type RefreshedTokens } from "./mcp/oauth-refresh.js";

export interface McpOwner {
  orgId: string;
  agentId: string;
}

/** Where the organization's vault epoch is read (`org-epochs.ts`): a cached resolution is good while it is current. */
export interface VaultEpochReader {
  current(orgId: string): Promise<string>;
}

export interface McpAccessDeps {
  epochs: VaultEpochReader;
  attachments: AgentVaultStore;
  vaults: VaultStore;
  credentials: CredentialStore;
  locks: Locks;
  pool: McpConnections;
  /** What token endpoint requests go through (the outbound guard). */
  fetch: typeof fetch;
  logger: Logger;
}

/** An endpoint and the credential behind its header, if any. */
interface Resolved {
  endpoint: McpEndpoint;
  credential: CredentialDoc | null;
}

/** A token this close to its expiry is refreshed before it is sent, so it does not expire in flight. */
const EXPIRY_MARGIN_MS = 60_000;
/** Resolutions kept: agent and server pairs a worker serves at once. */
const CACHED_RESOLUTIONS = 1000;
/** A resolution is read anew at least this often, should an epoch bump have been lost (a crash between a write and its bump). */
const RESOLUTION_TTL_MS = 30_000;

const isOAuth = (doc: CredentialDoc) => doc.auth.type === "mcp_oauth";
/**
 * Whether an OAuth token is to be refreshed before it is sent: within the margin of its expiry, or
 * within half its lifetime (as stored: since the last write) when that is shorter, so a token endpoint
 * issuing one-minute tokens is not asked at every request.
 */
function expiresSoon(doc: CredentialDoc): boolean {
  if (doc.auth.type !== "mcp_oauth") return false;
  const expiresAt = doc.auth.expiresAt.getTime();
  const margin = Math.min(EXPIRY_MARGIN_MS, Math.max(0, (expiresAt - doc.updatedAt.getTime()) / 2));
  return expiresAt - margin <= Date.now();
}
const secretsOf = (doc: CredentialDoc) => doc.secretsVersion ?? 0;
const keyOf = (doc: CredentialDoc) => `${doc._id}:${secretsOf(doc)}`;
const upstream = (message: string) => new AppError("upstream_failed", message);

export class McpAccess {
  /** Resolutions by organization, agent and server URL, each with the epoch read before it was made. */
  private readonly resolutions = new Lru<string, { epoch: string; at: number; resolved: Resolved }>(CACHED_RESOLUTIONS);

  constructor(private readonly deps: McpAccessDeps) {}

  /**
   * The tools the turn offers from each MCP toolset of `governing`; a server that cannot be listed is
   * left out and named in `unavailable`. Reads nothing when the agent has no MCP toolset.
   */
  async offer(owner: McpOwner, servers: readonly McpServerRef[], governing: readonly ToolConfig[], signal?: AbortSignal): Promise<McpOffer> {
    const toolsets = governing.filter((t): t is McpToolset => t.type === "mcp_toolset");
    if (toolsets.length === 0) return { specs: [], unavailable: [] };
    const offers = await Promise.all(
      toolsets.map(async (toolset) => {
        try {
          const server = this.serverOf(servers, toolset);
          const offered = offeredMcpTools(toolset, await this.listTools(owner, server, signal), toolsets);
          if (offered.skipped.length > 0)
            this.deps.logger.warn("MCP tools left out for their names", { server: server.name, tools: offered.skipped.slice(0, 20) });
          return { specs: offered.specs, unavailable: [] };
        } catch (err) {
          if (signal?.aborted) throw signal.reason;
          if (!(err instanceof AppError)) throw err;
          return { specs: [], unavailable: [`the tools of the MCP server ${toolset.mcpServerName} are unavailable: ${err.message}`] };
        }
      }),
    );
    return { specs: offers.flatMap((o) => o.specs), unavailable: offers.flatMap((o) => o.unavailable) };
  }

  /** A server's tools, listed with the credential that matches it now. Throws `upstream_failed`, `conflict`, `unavailable`. */
  async listTools(owner: McpOwner, server: McpServerRef, signal?: AbortSignal): Promise<McpToolInfo[]> {
    const first = await this.resolve(owner, server);
    try {
      return await this.deps.pool.listTools(first.endpoint, signal);
    } catch (err) {
      if (!this.mayRetry(first, err instanceof AppError && err.details.upstreamStatus === 401)) throw err;
      return this.deps.pool.listTools((await this.resolve(owner, server, first.credential)).endpoint, signal);
    }
  }

  /** Connects to the server anew with the credential that matches it now and lists its tools (the server test). */
  async probe(owner: McpOwner, server: McpServerRef): Promise<{ credential: CredentialDoc | null; transport: McpTransport; tools: McpToolInfo[] }> {
    const first = await this.resolve(owner, server);
    try {
      return { credential: first.credential, ...(await this.deps.pool.probe(first.endpoint)) };
    } catch (err) {
      if (!this.mayRetry(first, err instanceof AppError && err.details.upstreamStatus === 401)) throw err;
      const again = await this.resolve(owner, server, first.credential);
      return { credential: again.credential, ...(await this.deps.pool.probe(again.endpoint)) };
    }
  }

  /** Runs an MCP tool call of the model; every failure is an error result, only an abort throws. */
  async call(
    owner: McpOwner,
    servers: readonly McpServerRef[],
    governing: readonly ToolConfig[],
    name: string,
    input: unknown,
    signal?: AbortSignal,
  ): Promise<McpCallOutcome> {
    const found = mcpToolOf(
      governing.filter((t): t is McpToolset => t.type === "mcp_toolset"),
      name,
    );
    if (!found) return { ok: false, text: `no MCP server of this agent offers the tool ${name}` };
    try {
      const server = this.serverOf(servers, found.toolset);
      const args = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
      // A read tool's name is checked against the server's own tools (listed from cache) only when it could be one.
      const readTool = async ({ endpoint }: Resolved) =>
        readToolOf(found.toolset, found.tool, []) &&
        readToolOf(
          found.toolset,
          found.tool,
          (await this.deps.pool.listTools(endpoint, signal)).map((t) => t.name),
        );
      const once = async (resolved: Resolved) => {
        const read = await readTool(resolved);
        return read ? this.deps.pool.read(resolved.endpoint, read, args, signal) : this.deps.pool.callTool(resolved.endpoint, found.tool, args, signal);
      };
      const first = await this.resolve(owner, server);
      const outcome = await once(first);
      if (!this.mayRetry(first, outcome.unauthorized === true)) return outcome;
      return await once(await this.resolve(owner, server, first.credential));
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (!(err instanceof AppError)) throw err;
      return { ok: false, text: err.message };
    }
  }

  /** A 401 with an OAuth credential: the token may have been revoked before its expiry, so it is refreshed once. */
  private mayRetry(resolved: Resolved, unauthorized: boolean): boolean {
    return unauthorized && resolved.credential !== null && isOAuth(resolved.credential);
  }

  private serverOf(servers: readonly McpServerRef[], toolset: McpToolset): McpServerRef {
    const server = servers.find((s) => s.name === toolset.mcpServerName);
    if (!server) throw upstream(`the agent version has no MCP server named ${toolset.mcpServerName}`);
    return server;
  }

  /**
   * The server's endpoint with the credential that matches it now: from cache while the organization's
   * vault epoch is the one read before the cached resolution (nothing it read has changed since) and its
   * token is not about to expire. `refused`: the credential a server just answered 401 to, which is
   * refreshed unless another process already replaced it.
   */
  async resolve(owner: McpOwner, server: McpServerRef, refused?: CredentialDoc | null): Promise<Resolved> {
    const key = `${owner.orgId}\u0000${owner.agentId}\u0000${server.url}`;
    const epoch = await this.deps.epochs.current(owner.orgId);
    const cached = this.resolutions.get(key);
    const fresh =
      cached &&
      cached.epoch === epoch &&
      Date.now() - cached.at < RESOLUTION_TTL_MS &&
      !(cached.resolved.credential && expiresSoon(cached.resolved.credential));
    if (fresh && !refused) return { ...cached.resolved, endpoint: { ...cached.resolved.endpoint, name: server.name } };
    const resolved = await this.resolveNow(owner, server, refused);
    this.resolutions.set(key, { epoch, at: Date.now(), resolved });
    // Connections made with secrets replaced since (rotated, refreshed, archived) keep no token alive.
    this.deps.pool.retireOthers(resolved.endpoint);
    return resolved;
  }

  private async resolveNow(owner: McpOwner, server: McpServerRef, refused?: CredentialDoc | null): Promise<Resolved> {
    const endpoint: McpEndpoint = { name: server.name, url: server.url, owner: owner.orgId };
    const credential = await this.matching(owner, server);
    if (!credential) return { endpoint, credential: null };
    if (!credential.readable)
      throw unavailable(`the credential ${credential.doc._id} for the MCP server ${server.name} cannot be decrypted with the keys this service holds`);
    const opened = await this.deps.credentials.open(credential.doc._id);
    if (!opened) return { endpoint, credential: null };
    const current = refused || expiresSoon(opened.doc) ? await this.refreshed(server, opened.doc, refused ?? null) : opened;
    const token = current.secrets.type === "static_bearer" ? current.secrets.token : current.secrets.accessToken;
    return { endpoint: { ...endpoint, authorization: `Bearer ${token}`, credentialKey: keyOf(current.doc) }, credential: current.doc };
  }

  /** The one active credential of the agent's active attached vaults that matches the server, if any. */
  private async matching(owner: McpOwner, server: McpServerRef) {
    const attached = await this.deps.attachments.attached(owner.orgId, owner.agentId);
    if (!attached) return null;
    const states = await activeCredentialsIn(this.deps.vaults, this.deps.credentials, owner.orgId, attached.vaultIds);
    const candidates = states.map((s) => ({ ...s, id: s.doc._id, mcpServerUrl: s.doc.auth.mcpServerUrl }));
    const match = matchCredential(server.url, candidates);
    if (match.kind === "many")
      throw conflict(`several credentials of the agent's vaults match the MCP server ${server.name} (${match.ids.join(", ")}); keep one`);
    return match.kind === "one" ? match.credential : null;
  }

  /**
   * The credential with a fresh access token. Under the credential's refresh lock, and read again once
   * held: a process that waited for another's refresh finds the new token and does not spend the
   * (rotating) refresh token a second time. `refused`: the credential as it was when a server refused
   * its token; secrets replaced since then are taken as the answer.
   */
  private async refreshed(
    server: McpServerRef,
    seen: CredentialDoc,
    refused: CredentialDoc | null,
  ): Promise<{ doc: CredentialDoc; secrets: CredentialSecrets }> {
    const needsAuthorizing = `the credential ${seen._id} for the MCP server ${server.name} needs to be authorized again`;
    const gone = () => upstream(`the credential ${seen._id} for the MCP server ${server.name} was removed or archived`);
    if (seen.auth.type !== "mcp_oauth") throw upstream(`the MCP server ${server.name} refused the credential ${seen._id}`);
    if (seen.refusedAt) throw upstream(`${needsAuthorizing}: its last refresh was refused`);
    return this.deps.locks.withCredentialRefresh(seen._id, async () => {
      const now = await this.deps.credentials.open(seen._id);
      if (!now || now.doc.archivedAt || now.doc.auth.type !== "mcp_oauth" || now.secrets.type !== "mcp_oauth") throw gone();
      const replaced = refused ? secretsOf(now.doc) !== secretsOf(refused) : !expiresSoon(now.doc);
      if (replaced) return now;
      if (now.doc.refusedAt) throw upstream(`${needsAuthorizing}: its last refresh was refused`);
      const refresh = now.doc.auth.refresh;
      if (!refresh || !now.secrets.refreshToken)
        throw upstream(`${needsAuthorizing}: its access token ${refused ? "was refused" : "expired"} and it has no refresh token`);
      let tokens: RefreshedTokens;
      try {
        tokens = await refreshAccessToken(
          {
            tokenEndpoint: refresh.tokenEndpoint,
            clientId: refresh.clientId,
            clientSecret: now.secrets.clientSecret,
            authType: refresh.tokenEndpointAuth.type,
            refreshToken: now.secrets.refreshToken,
            resource: server.url,
          },
          this.deps.fetch,
        );
      } catch (err) {
        if (!(err instanceof RefreshFailed)) throw err;
        if (err.refused) await this.deps.credentials.markRefused(now.doc);
        this.deps.logger.warn("OAuth refresh failed", { credentialId: now.doc._id, server: server.name, refused: err.refused, reason: err.message });
        throw upstream(`the credential ${now.doc._id} for the MCP server ${server.name} could not be refreshed: ${err.message}`);
      }
      const secrets: CredentialSecrets = { ...now.secrets, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken };
      const doc = await this.deps.credentials.update(now.doc, { expiresAt: tokens.expiresAt }, secrets);
      if (doc === null) throw gone();
      // A rotation landed while the endpoint answered: the person's new secrets win over these.
      if (doc === "stale") return (await this.deps.credentials.open(seen._id)) ?? Promise.reject(gone());
      return { doc, secrets };
    });
  }
}
