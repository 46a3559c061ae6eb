/**
 * The credentials that can serve an agent: the active credentials of the active vaults among those
 * attached. Archiving a vault retires it, so its credentials are not matched while it stays attached.
 * One reading for the statuses, the run time and installations.
 */
import type { CredentialState, CredentialStore } from "./store/vault-credentials.js";
import type { VaultStore } from "./store/vaults.js";

export async function activeCredentialsIn(vaults: VaultStore, credentials: CredentialStore, orgId: string, vaultIds: string[]): Promise<CredentialState[]> {
  if (vaultIds.length === 0) return [];
  const [found, states] = await Promise.all([vaults.getMany(orgId, vaultIds), credentials.activeIn(vaultIds)]);
  const active = new Set(found.filter((v) => !v.archivedAt).map((v) => v._id));
  return states.filter((s) => active.has(s.doc.vaultId));
}
