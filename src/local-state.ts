/**
 * What this machine's state directory holds for a local start (`npm start`, the CLI) against the local
 * services, so that neither needs a variable: the stores' URLs with the passwords `scripts/services.sh`
 * made (secrets/credentials.env), and the vault key a local start makes once (secrets/vault.key). Only
 * what the environment leaves unset is taken from there; a production start (NODE_ENV=production) never
 * gets a made key, since each machine would make its own and what one sealed the others could not open.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { ConfigError } from "./config.js";

type Env = Record<string, string | undefined>;

/** A line for the start log: where something was taken from, never a secret. */
export interface LocalNote {
  message: string;
  file: string;
}

/** `scripts/services.sh`'s STATE_DIR, computed the same way. */
export function stateDirectory(env: Env): string {
  return env.SERVICES_DIR || join(env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state"), "agent-sessions");
}

/** The 0700 directory of the 0600 files. */
export function secretsDirectory(env: Env): string {
  return join(stateDirectory(env), "secrets");
}

function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ConfigError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

/** MONGO_URL and REDIS_URL from the credentials file, for those the environment leaves unset. */
function localStores(env: Env): { set: Env; notes: LocalNote[] } {
  const file = join(secretsDirectory(env), "credentials.env");
  const unset = (["MONGO_URL", "REDIS_URL"] as const).filter((name) => !env[name]);
  const text = unset.length > 0 ? readIfPresent(file) : undefined;
  if (text === undefined) return { set: {}, notes: [] };
  const values = parseEnv(text);
  const set = Object.fromEntries(unset.flatMap((name) => (values[name] ? [[name, values[name]]] : [])));
  const names = Object.keys(set);
  const their = names.length > 1 ? "their passwords" : "its password";
  return { set, notes: names.length > 0 ? [{ message: `${names.join(" and ")} (with ${their}) from the local services' credentials`, file }] : [] };
}

const BASE64_KEY = /^[A-Za-z0-9+/]{43}=$/;

/**
 * The local vault key: the file's, or a new one written there first (exclusively, so processes starting
 * together agree on one). Only for a local start: not in production, not beside an explicit key, and not
 * for a database the environment names (its secrets may have been sealed with a key kept elsewhere).
 */
function localVaultKey(env: Env): { set: Env; notes: LocalNote[] } {
  if (env.NODE_ENV === "production" || env.VAULT_ENCRYPTION_KEY || env.MONGO_URL) return { set: {}, notes: [] };
  const dir = secretsDirectory(env);
  const file = join(dir, "vault.key");
  let made = false;
  let key = readIfPresent(file)?.trim();
  if (key === undefined) {
    mkdirSync(stateDirectory(env), { recursive: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, `${randomBytes(32).toString("base64")}\n`, { flag: "wx", mode: 0o600 });
      made = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new ConfigError(`cannot write ${file}: ${(err as Error).message}`);
    }
    key = readFileSync(file, "utf8").trim();
  }
  if (!BASE64_KEY.test(key))
    throw new ConfigError(`${file} must hold a 32-byte key, base64-encoded (delete it to have a new one made, or set VAULT_ENCRYPTION_KEY)`);
  return { set: { VAULT_ENCRYPTION_KEY: key }, notes: [{ message: made ? "vault key made for the local services" : "vault key of the local services", file }] };
}

/** The environment with what the state directory supplies; `vaultKey`: a service start, which may make the key. */
export function withLocalState(env: Env, opts: { vaultKey: boolean }): { env: Env; notes: LocalNote[] } {
  const stores = localStores(env);
  const vault = opts.vaultKey ? localVaultKey(env) : { set: {}, notes: [] };
  return { env: { ...env, ...stores.set, ...vault.set }, notes: [...stores.notes, ...vault.notes] };
}
