/**
 * Deployment use cases: the rules of the deployments interface over the deployment store. Creating
 * answers at once with a `provisioning` deployment whose work runs in the background; an update writes
 * new settings over the revision it read and moves the agent to them (its next thread runs on them).
 */
import type { FromSchemas } from "../../schemas/index.js";
import type { deploymentCreateSchema } from "../../schemas/deployment-create.js";
import type { deploymentListQuerySchema } from "../../schemas/deployment-list-query.js";
import type { deploymentPatchSchema } from "../../schemas/deployment-patch.js";
import { bodyProblems } from "../agents/domain/agent-config.js";
import { agentBodyOf } from "./domain/agent.js";
import { applyChange, DEFAULT_RUNTIME, DEFAULT_SANDBOX, featuresOf, secretRefsOf, type DeploymentSettings, type SettingsChange } from "./domain/deployments.js";
import { AppError, conflict, notFound, validationError } from "../errors.js";
import { newId } from "../ids.js";
import type { DeploymentDoc, DeploymentStore } from "./store/deployments.js";
import { decodeListCursor, encodeListCursor } from "./cursor.js";
import type { DeploymentProvisioning } from "./provisioning.js";
import type { SkillSources } from "./skills.js";
import { createKept, keptId, type Kept, type Once } from "../idempotency/index.js";

export type DeploymentCreateBody = FromSchemas<typeof deploymentCreateSchema>;
export type DeploymentPatchBody = FromSchemas<typeof deploymentPatchSchema>;
export type DeploymentListQuery = FromSchemas<typeof deploymentListQuerySchema>;

/** The account's credits: creating and updating need a positive balance (`402 insufficient_credits`). */
export interface CreditCheck {
  requirePositive(orgId: string): Promise<void>;
}

/** The account's secrets, as far as references to them go. */
export interface SecretRefs {
  missing(orgId: string, refs: string[]): Promise<string[]>;
}

export interface DeploymentServiceDeps {
  store: DeploymentStore;
  skills: SkillSources;
  secrets: SecretRefs;
  credits: CreditCheck;
  provisioning: DeploymentProvisioning;
  /** The model of a deployment created without one. */
  defaultModel: string;
}

/** Agent configuration paths in the deployments interface's names. */
const wirePath = (problem: string) => problem.replace(/^mcpServers/, "mcp_servers").replace(/^systemPrompt/, "system_prompt");

export class DeploymentService {
  constructor(private readonly deps: DeploymentServiceDeps) {}

  /**
   * Under an Idempotency-Key (`kept-creates.ts`), a retry finds the deployment its first attempt made, and
   * kicks its provisioning again (that attempt may have died before it did).
   */
  async createKept(orgId: string, body: DeploymentCreateBody, once?: Once): Promise<Kept<DeploymentDoc>> {
    const made = await createKept(
      keptId("dep", once),
      (id) => this.deps.store.get(orgId, id),
      (id) => this.create(orgId, body, id),
    );
    if (made.replayed && made.value.status === "provisioning") this.deps.provisioning.kick(made.value._id);
    return made;
  }

  async create(orgId: string, body: DeploymentCreateBody, id = newId("dep")): Promise<DeploymentDoc> {
    const settings: DeploymentSettings = {
      name: body.name,
      model: body.model ?? this.deps.defaultModel,
      systemPrompt: body.system_prompt,
      mcpServers: (body.mcp_servers ?? []).map((s) => ({ name: s.name, url: s.url, ...(s.tools ? { tools: [...s.tools] } : {}) })),
      skills: [],
      secrets: { ...(body.secrets ?? {}) },
      features: featuresOf(body.features),
    };
    this.refuseAgentProblems(id, settings);
    await this.deps.credits.requirePositive(orgId);
    await this.refuseMissingSecrets(orgId, settings.secrets);
    settings.skills = await this.deps.skills.resolve(null, body.skills ?? []);
    const now = new Date();
    const sandbox = body.sandbox ?? {};
    const doc: DeploymentDoc = {
      _id: id,
      orgId,
      customerId: body.customer_id,
      runtime: body.runtime ?? DEFAULT_RUNTIME,
      sandbox: {
        enabled: sandbox.enabled ?? DEFAULT_SANDBOX.enabled,
        type: sandbox.type ?? DEFAULT_SANDBOX.type,
        persistentFilesystem: sandbox.persistent_filesystem ?? DEFAULT_SANDBOX.persistentFilesystem,
      },
      settings,
      status: "provisioning",
      statusReason: null,
      transitions: [{ status: "provisioning", at: now, reason: null }],
      agentId: newId("agt"),
      threadId: newId("ses"),
      revision: 1,
      leaseUntil: null,
      leaseOwner: null,
      deleting: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.store.insert(doc);
    this.deps.provisioning.kick(id);
    return doc;
  }

  async get(orgId: string, id: string): Promise<DeploymentDoc> {
    const doc = await this.deps.store.get(orgId, id);
    if (!doc) throw notFound("deployment");
    return doc;
  }

  async list(orgId: string, query: DeploymentListQuery): Promise<{ items: DeploymentDoc[]; nextCursor: string | null }> {
    const filter = { ...(query.customer_id !== undefined ? { customerId: query.customer_id } : {}), ...(query.status ? { status: query.status } : {}) };
    const before = query.cursor === undefined ? undefined : decodeListCursor("deployments", query.cursor, filter);
    const limit = query.limit ?? 20;
    const page = await this.deps.store.list(orgId, filter, { limit, ...(before ? { before } : {}) });
    const last = page.items[page.items.length - 1];
    return { items: page.items, nextCursor: page.more && last ? encodeListCursor("deployments", last._id, filter) : null };
  }

  /** Applies the update; one that changes nothing answers the deployment as it is, and writes nothing. */
  async update(orgId: string, id: string, body: DeploymentPatchBody): Promise<DeploymentDoc> {
    const doc = await this.get(orgId, id);
    if (body.customer_id !== undefined && body.customer_id !== doc.customerId) {
      throw validationError("customer_id: is immutable (create a new deployment for another customer)");
    }
    if (body.runtime !== undefined && body.runtime !== doc.runtime)
      throw validationError("runtime: is immutable (create a new deployment for another runtime)");
    const change: SettingsChange = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.model !== undefined ? { model: body.model } : {}),
      ...(body.system_prompt !== undefined ? { systemPrompt: body.system_prompt } : {}),
      ...(body.mcp_servers ? { mcpServers: body.mcp_servers.map((s) => ({ name: s.name, url: s.url, ...(s.tools ? { tools: [...s.tools] } : {}) })) } : {}),
      ...(body.secrets ? { secrets: { ...body.secrets } } : {}),
      ...(body.features ? { features: body.features } : {}),
    };
    if (body.skills) change.skills = await this.deps.skills.resolve(doc._id, body.skills);
    const { next, changed } = applyChange(doc.settings, change);
    if (!changed) return doc;
    this.refuseAgentProblems(doc._id, next);
    await this.deps.credits.requirePositive(orgId);
    if (change.secrets) await this.refuseMissingSecrets(orgId, next.secrets);
    const reprovision = doc.status === "error";
    const updated = await this.deps.store.changeSettings(doc, next, reprovision);
    if (!updated) throw conflict("the deployment changed during this update; fetch it and retry");
    if (updated.status === "ready") await this.deps.provisioning.syncAgent(updated);
    else this.deps.provisioning.kick(updated._id);
    return updated;
  }

  /** Gone for callers at once; the agent stops and the rest is destroyed (or the workspace kept) in the background. */
  async remove(orgId: string, id: string, retainFilesystem: boolean): Promise<void> {
    const doc = await this.deps.store.markDeleting(orgId, id, retainFilesystem);
    if (!doc) throw notFound("deployment");
    await this.deps.provisioning.beginTeardown(doc);
  }

  private refuseAgentProblems(id: string, settings: DeploymentSettings): void {
    const problems = bodyProblems(agentBodyOf(id, settings)).map(wirePath);
    if (problems.length > 0) throw validationError(problems);
  }

  private async refuseMissingSecrets(orgId: string, secrets: Record<string, string>): Promise<void> {
    const refs = secretRefsOf(secrets);
    if (refs.length === 0) return;
    const missing = new Set(await this.deps.secrets.missing(orgId, refs));
    const names = Object.entries(secrets)
      .filter(([, ref]) => missing.has(ref))
      .map(([name]) => `secrets.${name}`);
    if (names.length > 0)
      throw new AppError("invalid_secret_ref", `${names.join(", ")}: ${names.length === 1 ? "names no secret" : "name no secrets"} of this account`);
  }
}
