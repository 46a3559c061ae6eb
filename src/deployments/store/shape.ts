/**
 * How a deployment record is stored. The secrets map (variable name → `sec_<id>`) is stored as a list of
 * `{name, ref}` pairs, so a name is a value on disk: FerretDB v1 skips a `$set` whose value equals the
 * stored one by values alone, keys ignored, so `{C: ref}` → `{E: ref}` written as a map was silently
 * dropped (docs/decisions/storage-and-ferretdb.md, "Writes that land: the store contract"). Records written before hold the
 * map itself, and read as they are; their next settings write stores the pairs.
 */
import type { DeploymentSettings } from "../domain/deployments.js";

export interface SecretPair {
  name: string;
  ref: string;
}

/** The secrets as a record may hold them: pairs, or (written before) the map. */
export type StoredSecrets = SecretPair[] | Record<string, string>;

export type StoredSettings = Omit<DeploymentSettings, "secrets"> & { secrets: StoredSecrets };

export function storedSecrets(secrets: Record<string, string>): SecretPair[] {
  return Object.entries(secrets).map(([name, ref]) => ({ name, ref }));
}

export function loadedSecrets(stored: StoredSecrets | undefined): Record<string, string> {
  if (!Array.isArray(stored)) return { ...stored };
  return Object.fromEntries(stored.map((p) => [p.name, p.ref]));
}

export function storedSettings(settings: DeploymentSettings): StoredSettings {
  return { ...settings, secrets: storedSecrets(settings.secrets) };
}

export function loadedSettings(stored: StoredSettings): DeploymentSettings {
  return { ...stored, secrets: loadedSecrets(stored.secrets) };
}
