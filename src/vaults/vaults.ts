/**
 * Vault use cases: create, list, read, archive, delete. A vault is deleted only when empty (its
 * credentials hold secrets a caller must remove on purpose), and its agent attachments go with it.
 */
import type { FromSchemas } from "../../schemas/index.js";
import type { vaultCreateSchema } from "../../schemas/vault-create.js";
import { conflict, notFound } from "../errors.js";
import type { AgentVaultStore } from "./store/agent-vaults.js";
import type { Page } from "../agents/store/agents.js";
import type { CredentialStore } from "./store/vault-credentials.js";
import type { VaultDoc, VaultStore } from "./store/vaults.js";
import { createKept, keptId, type Kept, type Once } from "../idempotency/index.js";

export type VaultCreateBody = FromSchemas<typeof vaultCreateSchema>;

export class VaultService {
  constructor(
    private readonly vaults: VaultStore,
    private readonly credentials: CredentialStore,
    private readonly attachments: AgentVaultStore,
  ) {}

  /** Under an Idempotency-Key (`kept-creates.ts`), a retry finds the vault its first attempt made. */
  create(orgId: string, body: VaultCreateBody, once?: Once): Promise<Kept<VaultDoc>> {
    return createKept(
      keptId("vlt", once),
      (id) => this.vaults.get(orgId, id),
      (id) => this.vaults.create(orgId, body.displayName, body.metadata ?? {}, id),
    );
  }

  list(orgId: string, opts: { limit: number; offset: number }): Promise<Page<VaultDoc>> {
    return this.vaults.list(orgId, opts);
  }

  /** Active or archived. */
  async get(orgId: string, id: string): Promise<VaultDoc> {
    const vault = await this.vaults.get(orgId, id);
    if (!vault) throw notFound("vault");
    return vault;
  }

  async archive(orgId: string, id: string): Promise<VaultDoc> {
    const vault = await this.vaults.archive(orgId, id);
    if (!vault) throw notFound("vault");
    return vault;
  }

  /** Detaches the vault from agents first: a vault that is gone is never left attached. */
  async delete(orgId: string, id: string): Promise<void> {
    await this.get(orgId, id);
    if (await this.credentials.any(id)) throw conflict("the vault holds credentials; delete every credential first");
    await this.attachments.detachVault(orgId, id);
    await this.vaults.delete(id);
  }
}
