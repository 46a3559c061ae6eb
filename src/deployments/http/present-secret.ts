/** Secret records → the deployments interface's bodies: the reference, the label and the times, never the value (a `SecretDoc` has none). */
import type { SecretDoc } from "../../vaults/store/secrets.js";

export function presentSecret(s: SecretDoc) {
  return { secret_id: s._id, name: s.name, created_at: s.createdAt.toISOString(), updated_at: s.updatedAt.toISOString() };
}

export function presentSecretList(page: { items: SecretDoc[]; nextCursor: string | null }) {
  return { data: page.items.map(presentSecret), next_cursor: page.nextCursor };
}
