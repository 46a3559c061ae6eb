/**
 * An agent's vault attachments: the set (replaced whole, guarded by the agent's `updatedAt`), and the
 * connection status of each MCP server of its latest version with the credentials of those vaults.
 * Credentials of an archived vault are not matched: archiving retires a vault, so it stops serving
 * the agents it is still attached to (it stays listed, and can be detached).
 */
import type { agentVaultsPutSchema } from "../../schemas/agent-vaults-put.js";
import type { FromSchemas } from "../../schemas/index.js";
import { connectionStatuses, type CredentialFacts, type McpServerStatus } from "./domain/mcp-connection-status.js";
import { conflict, invalidState, notFound } from "../errors.js";
import { activeCredentialsIn } from "./active-credentials.js";
import type { AgentVaultStore, Attachments } from "./store/agent-vaults.js";
import type { AgentStore } from "../agents/store/agents.js";
import type { CredentialState, CredentialStore } from "./store/vault-credentials.js";
import type { VaultDoc, VaultStore } from "./store/vaults.js";

export type AgentVaultsPutBody = FromSchemas<typeof agentVaultsPutSchema>;

export interface AgentVaultsView {
  agentId: string;
  updatedAt: Date;
  vaults: VaultDoc[];
  servers: McpServerStatus[];
}

/** What status computation needs of a credential (its secrets are not among it). */
function factsOf({ doc, readable }: CredentialState): CredentialFacts {
  const oauth = doc.auth.type === "mcp_oauth" ? doc.auth : null;
  return {
    id: doc._id,
    vaultId: doc.vaultId,
    mcpServerUrl: doc.auth.mcpServerUrl,
    authType: doc.auth.type,
    expiresAt: oauth ? oauth.expiresAt.toISOString() : null,
    refreshable: oauth?.refresh != null,
    readable,
    invalid: doc.refusedAt != null,
  };
}

export class AgentVaultService {
  constructor(
    private readonly agents: AgentStore,
    private readonly attachments: AgentVaultStore,
    private readonly vaults: VaultStore,
    private readonly credentials: CredentialStore,
  ) {}

  async get(orgId: string, agentId: string): Promise<AgentVaultsView> {
    const attached = await this.attachments.attached(orgId, agentId);
    if (!attached) throw notFound("agent");
    return this.view(orgId, agentId, attached);
  }

  /**
   * Replaces the whole set. Every vault must be the organization's; one archived may stay attached but
   * not be newly attached. A stale `expectedUpdatedAt` is a conflict.
   */
  async replace(orgId: string, agentId: string, body: AgentVaultsPutBody): Promise<AgentVaultsView> {
    const attached = await this.attachments.attached(orgId, agentId);
    if (!attached) throw notFound("agent");
    const found = new Map((await this.vaults.getMany(orgId, body.vaultIds)).map((v) => [v._id, v]));
    for (const id of body.vaultIds) {
      const vault = found.get(id);
      if (!vault) throw notFound(`vault ${id}`);
      if (vault.archivedAt && !attached.vaultIds.includes(id)) throw invalidState(`vault ${id} is archived and takes no new attachments`);
    }
    const replaced = await this.attachments.replace(orgId, agentId, attached, new Date(body.expectedUpdatedAt), body.vaultIds);
    if (!replaced) throw notFound("agent");
    if (replaced === "stale") {
      const now = (await this.attachments.attached(orgId, agentId))?.updatedAt.toISOString() ?? "unknown";
      throw conflict(`the agent changed since expectedUpdatedAt (its updatedAt is now ${now}); reload its vaults and retry`);
    }
    return this.view(orgId, agentId, replaced);
  }

  private async view(orgId: string, agentId: string, attached: Attachments): Promise<AgentVaultsView> {
    const [agent, vaults] = await Promise.all([this.agents.get(orgId, agentId), this.vaults.getMany(orgId, attached.vaultIds)]);
    if (!agent) throw notFound("agent");
    const order = new Map(attached.vaultIds.map((id, i) => [id, i]));
    vaults.sort((a, b) => order.get(a._id)! - order.get(b._id)!);
    const credentials = (await activeCredentialsIn(this.vaults, this.credentials, orgId, attached.vaultIds)).map(factsOf);
    return { agentId, updatedAt: attached.updatedAt, vaults, servers: connectionStatuses(agent.current.mcpServers, credentials, new Date()) };
  }
}
