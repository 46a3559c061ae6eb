/**
 * MCP installations (`POST /v1/agents/{id}/mcp/installations`): one server and its toolset published as
 * a new agent version, and its authentication set up: nothing (a public server), an existing vault
 * attached, or a new bearer credential stored (in a given vault, or in a new one) and its vault attached.
 *
 * FerretDB v1 has no transactions, so the installation is a sequence of steps each safe to run again:
 * claim the idempotency key (its record fixes the ids of everything the installation creates); check;
 * publish the version, marked with the plan's id (the commit point: a refusal before it changes
 * nothing but the claim); create the vault and the credential under their planned ids; attach the
 * vault; record the answer. A retry with the same key runs the same steps: an attempt that died part-way
 * is finished, a created object is found under its id, the published version is known by its mark, and
 * attempts running at once create nothing twice. A complete installation's retry gets its first answer.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  MAX_ATTACHED_VAULTS,
  connectorProblems,
  credentialVerdict,
  installationConfig,
  installedServer,
  newVaultName,
  type McpInstallationBody,
  type MatchingCredential,
} from "./domain/mcp-installation.js";
import { credentialsMatching } from "./domain/mcp-connection-status.js";
import { normalizeServerUrl } from "./domain/mcp-server-url.js";
import { AppError, conflict, invalidState, notFound, unavailable, validationError } from "../errors.js";
import { newId } from "../ids.js";
import type { AgentVaultStore } from "./store/agent-vaults.js";
import { configOf, type AgentDoc, type AgentStore } from "../agents/store/agents.js";
import type { InstallationAnswer, InstallationPlan, McpInstallationStore } from "./store/mcp-installations.js";
import type { CredentialStore } from "./store/vault-credentials.js";
import type { VaultStore } from "./store/vaults.js";
import { activeCredentialsIn } from "./active-credentials.js";

export type { McpInstallationBody } from "./domain/mcp-installation.js";

/** An installation's result: the answer, with the agent as it stood once the installation was complete. */
export type Installation = Omit<InstallationAnswer, "agent"> & { agent: AgentDoc };

/** How long a key's record is kept: a retry within it gets the first answer. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Attempts at attaching the vault while other writers change the agent's vaults. */
const ATTACH_ATTEMPTS = 10;

function planFor(body: McpInstallationBody): InstallationPlan {
  const auth = body.authentication;
  const bearer = auth.type === "static_bearer";
  return { id: randomBytes(16).toString("hex"), newVaultId: bearer && !auth.vaultId ? newId("vlt") : null, credentialId: bearer ? newId("vcr") : null };
}

const staleMessage = (expected: number, current: number) =>
  `expectedAgentVersion ${expected} does not match the current version ${current}; refetch the agent and retry with a new idempotencyKey`;

export class McpInstallationService {
  constructor(
    private readonly agents: AgentStore,
    private readonly attachments: AgentVaultStore,
    private readonly vaults: VaultStore,
    private readonly credentials: CredentialStore,
    private readonly installations: McpInstallationStore,
  ) {}

  async install(orgId: string, agentId: string, body: McpInstallationBody): Promise<Installation> {
    const problems = connectorProblems(body);
    if (problems.length > 0) throw validationError(problems);
    const agent = await this.agents.get(orgId, agentId);
    if (!agent) throw notFound("agent");
    const claim = await this.installations.claim(orgId, agentId, body.idempotencyKey, body, () => planFor(body));
    if (claim.kind === "mismatch") {
      throw conflict("this idempotencyKey was already used for a different installation request on this agent; send a new key for a new request");
    }
    if (claim.answer) return this.replay(agent, claim.answer);
    const version = (await this.ownVersion(agent, body.expectedAgentVersion, claim.plan.id)) ?? (await this.publish(agent, body, claim.plan));
    const authentication = await this.setUp(orgId, agent, body, claim.plan);
    const after = await this.agents.get(orgId, agentId);
    if (!after) throw notFound("agent");
    const { status, rateLimits, createdAt, updatedAt } = after;
    const answer: InstallationAnswer = {
      agent: { status, rateLimits, createdAt, updatedAt, version: after.version },
      version,
      mcpServer: installedServer(body),
      authentication,
    };
    await this.installations.complete(claim.recordId, answer);
    return { ...answer, agent: after };
  }

  /** Removes the idempotency records older than the retention; how many went. */
  expire(now = new Date()): Promise<number> {
    return this.installations.expire(new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS));
  }

  /** Expires records every `intervalMs` (FerretDB v1 has no TTL index); returns the function that stops it. */
  expireEvery(intervalMs: number, onError: (err: unknown) => void): () => void {
    const timer = setInterval(() => void this.expire().catch(onError), intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** The first answer again; its agent's configuration is the immutable version it named. */
  private async replay(agent: AgentDoc, answer: InstallationAnswer): Promise<Installation> {
    const current = await this.agents.getVersionById(agent._id, answer.agent.version);
    if (!current) throw notFound("agent version");
    return { ...answer, agent: { _id: agent._id, orgId: agent.orgId, ...answer.agent, current } };
  }

  private async isOwn(agentId: string, version: number, planId: string): Promise<boolean> {
    return (await this.agents.getVersionById(agentId, version))?.publishedBy === planId;
  }

  /**
   * The version an earlier attempt of this installation published, or null when the agent is still at
   * the expected version (nothing published yet, as far as the agent's pointer says). Any other version
   * is a stale expectation.
   */
  private async ownVersion(agent: AgentDoc, expected: number, planId: string): Promise<number | null> {
    if (agent.version === expected) return null;
    if (agent.version > expected && (await this.isOwn(agent._id, expected + 1, planId))) return expected + 1;
    throw conflict(staleMessage(expected, agent.version));
  }

  /** Checks, then publishes the version holding the server and its toolset: the commit point. */
  private async publish(agent: AgentDoc, body: McpInstallationBody, plan: InstallationPlan): Promise<number> {
    const planned = installationConfig(configOf(agent.current), body);
    if (!planned.ok) throw planned.kind === "conflict" ? conflict(planned.message) : validationError(planned.problems);
    await this.checkAuthentication(agent, body, plan);
    const result = await this.agents.publish(agent, planned.config, undefined, { publishedBy: plan.id });
    if (result.ok) return result.agent.version;
    if (result.reason === "not_found") throw notFound("agent");
    // Refused: the number was taken, perhaps by an attempt of this very installation running beside this one.
    if (await this.isOwn(agent._id, agent.version + 1, plan.id)) return agent.version + 1;
    throw conflict(
      `the agent changed from version ${agent.version} to version ${result.currentVersion} during this installation; refetch the agent and retry with a new idempotencyKey`,
    );
  }

  /**
   * The target vault must be the organization's and active, and attachable; secrets must be sealable
   * for a new credential; and the credentials the server would then draw on must give it the status
   * its authentication means (`credentialVerdict`).
   */
  private async checkAuthentication(agent: AgentDoc, body: McpInstallationBody, plan: InstallationPlan): Promise<void> {
    const auth = body.authentication;
    const attached = await this.attachments.attached(agent.orgId, agent._id);
    if (!attached) throw notFound("agent");
    const target = auth.type === "none" ? null : (auth.vaultId ?? null);
    if (target) {
      const vault = await this.vaults.get(agent.orgId, target);
      if (!vault) throw notFound(`vault ${target}`);
      if (vault.archivedAt) throw invalidState(`vault ${target} is archived and takes no new credentials or attachments`);
    }
    const attaching = auth.type !== "none" && !(target && attached.vaultIds.includes(target));
    if (attaching && attached.vaultIds.length >= MAX_ATTACHED_VAULTS) {
      throw invalidState(`the agent already has ${MAX_ATTACHED_VAULTS} vaults attached, the most it may have; detach one first`);
    }
    if (auth.type === "static_bearer" && !this.credentials.canSeal()) {
      throw unavailable("credentials cannot be stored or used: VAULT_ENCRYPTION_KEY is not configured");
    }
    const vaultIds = target && !attached.vaultIds.includes(target) ? [...attached.vaultIds, target] : attached.vaultIds;
    const verdict = credentialVerdict(auth.type, target, await this.matches(agent.orgId, body.connector.url, vaultIds, plan.credentialId));
    if (!verdict.ok) throw verdict.kind === "conflict" ? conflict(verdict.message) : invalidState(verdict.message);
  }

  /** The active credentials of the active vaults among `vaultIds` that match `url`, `exclude` left out. */
  private async matches(orgId: string, url: string, vaultIds: string[], exclude: string | null): Promise<MatchingCredential[]> {
    const states = await activeCredentialsIn(this.vaults, this.credentials, orgId, vaultIds);
    const candidates = states.map(({ doc }) => ({ id: doc._id, vaultId: doc.vaultId, mcpServerUrl: doc.auth.mcpServerUrl }));
    return credentialsMatching(url, candidates)
      .filter((m) => m.id !== exclude)
      .map(({ id, vaultId }) => ({ id, vaultId }));
  }

  /** After the commit point: the vault and credential created (or found) under their planned ids, the vault attached. */
  private async setUp(orgId: string, agent: AgentDoc, body: McpInstallationBody, plan: InstallationPlan): Promise<InstallationAnswer["authentication"]> {
    const auth = body.authentication;
    if (auth.type === "none") return { type: auth.type, vaultId: null, credentialId: null };
    const vaultId = auth.vaultId ?? plan.newVaultId;
    if (!vaultId) throw new AppError("internal", "an installation without a vault to attach");
    const server = installedServer(body);
    if (auth.type === "static_bearer") {
      if (!plan.credentialId) throw new AppError("internal", "a bearer installation without a planned credential");
      if (!auth.vaultId && !(await this.vaults.createOnce(vaultId, orgId, newVaultName(agent.current.name, server.name), {}))) {
        throw new AppError("internal", "the installation's vault belongs to no one it can see");
      }
      const fields = {
        orgId,
        vaultId,
        displayName: server.name,
        metadata: null,
        auth: { type: auth.type, mcpServerUrl: server.url },
        serverKey: normalizeServerUrl(server.url)!,
      };
      if (!(await this.credentials.createOnce(plan.credentialId, fields, { type: auth.type, token: auth.token }))) {
        throw new AppError("internal", "the installation's credential belongs to no one it can see");
      }
    }
    await this.attach(orgId, agent._id, vaultId);
    const credentialId = plan.credentialId ?? (await this.matches(orgId, server.url, [vaultId], null))[0]?.id ?? null;
    return { type: auth.type, vaultId, credentialId };
  }

  /** Adds the vault to the agent's set under the set's claim (`expectedUpdatedAt`), read afresh after each lost claim. */
  private async attach(orgId: string, agentId: string, vaultId: string): Promise<void> {
    for (let attempt = 0; attempt < ATTACH_ATTEMPTS; attempt++) {
      const current = await this.attachments.attached(orgId, agentId);
      if (!current) throw notFound("agent");
      if (current.vaultIds.includes(vaultId)) return;
      const replaced = await this.attachments.replace(orgId, agentId, current, current.updatedAt, [...current.vaultIds, vaultId]);
      if (!replaced) throw notFound("agent");
      if (replaced !== "stale") return;
      await sleep(Math.random() * 10 * 2 ** Math.min(attempt, 4));
    }
    throw new AppError("busy", "the agent's vaults changed too often to attach the installation's vault; retry with the same idempotencyKey");
  }
}
