/**
 * Credential use cases: create (in an active vault), list, read, update display fields and rotate
 * secrets, archive, delete. Secrets go into the store sealed and never come back out of this service:
 * every answer is a `CredentialDoc`, which has none.
 */
import type { credentialCreateSchema } from "../../schemas/credential-create.js";
import type { credentialUpdateSchema } from "../../schemas/credential-update.js";
import type { FromSchemas } from "../../schemas/index.js";
import { normalizeServerUrl, serverUrlProblem } from "./domain/mcp-server-url.js";
import { AppError, invalidState, notFound, validationError } from "../errors.js";
import type { Page } from "../agents/store/agents.js";
import type { CredentialAuth, CredentialChange, CredentialDoc, CredentialSecrets, CredentialStore } from "./store/vault-credentials.js";
import type { VaultDoc, VaultStore } from "./store/vaults.js";
import { createKept, keptId, type Kept, type Once } from "../idempotency/index.js";

export type CredentialCreateBody = FromSchemas<typeof credentialCreateSchema>;
export type CredentialUpdateBody = FromSchemas<typeof credentialUpdateSchema>;
type AuthInput = CredentialCreateBody["auth"];

/** A URL the schema let through that still cannot name a server (credentials in it, say). */
function checkUrl(path: string, raw: string): void {
  const problem = serverUrlProblem(raw);
  if (problem) throw validationError(`${path}: ${problem}`);
}

/** The stored `auth` and the secrets of a create body. */
function split(auth: AuthInput): { auth: CredentialAuth; secrets: CredentialSecrets } {
  checkUrl("auth.mcpServerUrl", auth.mcpServerUrl);
  if (auth.type === "static_bearer") {
    return { auth: { type: auth.type, mcpServerUrl: auth.mcpServerUrl }, secrets: { type: auth.type, token: auth.token } };
  }
  const refresh = auth.refresh;
  if (refresh) {
    checkUrl("auth.refresh.tokenEndpoint", refresh.tokenEndpoint);
    const { type, clientSecret } = refresh.tokenEndpointAuth;
    if (type === "none" && clientSecret !== undefined) throw validationError("auth.refresh.tokenEndpointAuth.clientSecret: must be absent for type none");
    if (type !== "none" && clientSecret === undefined) throw validationError(`auth.refresh.tokenEndpointAuth.clientSecret: is required for type ${type}`);
  }
  return {
    auth: {
      type: auth.type,
      mcpServerUrl: auth.mcpServerUrl,
      expiresAt: new Date(auth.expiresAt),
      refresh: refresh
        ? { tokenEndpoint: refresh.tokenEndpoint, clientId: refresh.clientId, tokenEndpointAuth: { type: refresh.tokenEndpointAuth.type } }
        : null,
    },
    secrets: {
      type: auth.type,
      accessToken: auth.accessToken,
      refreshToken: refresh?.refreshToken ?? null,
      clientSecret: refresh?.tokenEndpointAuth.clientSecret ?? null,
    },
  };
}

/** Rotations retried while refreshes replace the secrets underneath (each refresh is one per expiry, so few). */
const ROTATION_ATTEMPTS = 5;

export class CredentialService {
  constructor(
    private readonly vaults: VaultStore,
    private readonly credentials: CredentialStore,
  ) {}

  private async vault(orgId: string, vaultId: string): Promise<VaultDoc> {
    const vault = await this.vaults.get(orgId, vaultId);
    if (!vault) throw notFound("vault");
    return vault;
  }

  /** Under an Idempotency-Key (`kept-creates.ts`), a retry finds the credential its first attempt made. */
  async create(orgId: string, vaultId: string, body: CredentialCreateBody, once?: Once): Promise<Kept<CredentialDoc>> {
    const vault = await this.vault(orgId, vaultId);
    if (vault.archivedAt) throw invalidState("the vault is archived and takes no new credentials");
    const { auth, secrets } = split(body.auth);
    const serverKey = normalizeServerUrl(auth.mcpServerUrl)!;
    return createKept(
      keptId("vcr", once),
      (id) => this.credentials.get(orgId, vaultId, id),
      (id) => this.credentials.create({ orgId, vaultId, displayName: body.displayName, metadata: body.metadata ?? null, auth, serverKey }, secrets, id),
    );
  }

  /** The vault's active credentials (the vault active or archived). */
  async list(orgId: string, vaultId: string, opts: { limit: number; offset: number }): Promise<Page<CredentialDoc>> {
    await this.vault(orgId, vaultId);
    return this.credentials.list(vaultId, opts);
  }

  /** Active or archived. */
  async get(orgId: string, vaultId: string, id: string): Promise<CredentialDoc> {
    const credential = await this.credentials.get(orgId, vaultId, id);
    if (!credential) throw notFound("credential");
    return credential;
  }

  /**
   * Display fields, and secrets rotated; an archived credential is read-only. A rotation merges with the
   * secrets as stored: when a refresh replaced them between the read and the write, it is merged again
   * with the refreshed ones rather than writing back a refresh token already spent.
   */
  async update(orgId: string, vaultId: string, id: string, body: CredentialUpdateBody): Promise<CredentialDoc> {
    for (let attempt = 0; attempt < ROTATION_ATTEMPTS; attempt++) {
      const credential = await this.get(orgId, vaultId, id);
      if (credential.archivedAt) throw invalidState("the credential is archived and cannot be changed");
      const change: CredentialChange = {};
      if (body.displayName !== undefined) change.displayName = body.displayName;
      if (body.metadata !== undefined) change.metadata = body.metadata;
      const rotated = body.auth && (await this.rotated(credential, body.auth, change));
      const updated = await this.credentials.update(credential, change, rotated);
      if (!updated) throw notFound("credential");
      if (updated !== "stale") return updated;
    }
    throw new AppError("busy", "the credential's secrets kept changing during this update; retry");
  }

  /** The secrets after a rotation; `auth.type` must be the credential's own. */
  private async rotated(credential: CredentialDoc, auth: NonNullable<CredentialUpdateBody["auth"]>, change: CredentialChange): Promise<CredentialSecrets> {
    if (auth.type !== credential.auth.type) throw validationError(`auth.type: is immutable; this credential's is ${credential.auth.type}`);
    if (auth.type === "static_bearer") return { type: auth.type, token: auth.token };
    if (credential.auth.type !== "mcp_oauth") throw validationError("auth.type: is immutable");
    const refresh = credential.auth.refresh;
    if (auth.refresh && !refresh) throw validationError("auth.refresh: the credential has no refresh configuration; create a new credential with one");
    const clientAuth = auth.refresh?.tokenEndpointAuth;
    if (clientAuth && refresh) {
      const method = refresh.tokenEndpointAuth.type;
      if (method === "none")
        throw validationError("auth.refresh.tokenEndpointAuth: the credential's token endpoint authentication is none, which takes no client secret");
      if (clientAuth.type !== undefined && clientAuth.type !== method)
        throw validationError(`auth.refresh.tokenEndpointAuth.type: is immutable; this credential's is ${method}`);
    }
    if (auth.expiresAt !== undefined) change.expiresAt = new Date(auth.expiresAt);
    const current = await this.credentials.secretsOf(credential);
    if (current.type !== "mcp_oauth") throw validationError("auth.type: is immutable");
    return {
      ...current,
      ...(auth.accessToken ? { accessToken: auth.accessToken } : {}),
      ...(auth.refresh?.refreshToken ? { refreshToken: auth.refresh.refreshToken } : {}),
      ...(clientAuth ? { clientSecret: clientAuth.clientSecret } : {}),
    };
  }

  async archive(orgId: string, vaultId: string, id: string): Promise<CredentialDoc> {
    const archived = await this.credentials.archive(await this.get(orgId, vaultId, id));
    if (!archived) throw notFound("credential");
    return archived;
  }

  async delete(orgId: string, vaultId: string, id: string): Promise<void> {
    await this.credentials.delete(await this.get(orgId, vaultId, id));
  }
}
