/**
 * Saved profiles of the API commands: a base URL and an API key under a name, in one JSON file under
 * `$XDG_CONFIG_HOME/agent-sessions/` (else `~/.config/agent-sessions/`), readable by its owner only.
 * The file is rewritten whole through a temporary file and a rename, so a crash leaves the old one.
 */
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { AppError } from "../../errors.js";

export interface Profile {
  url: string;
  apiKey: string;
}

interface ConfigFile {
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = "default";
export const PROFILE_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Where the profiles are kept, as the XDG base directory specification places a configuration file. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith("/") ? env.XDG_CONFIG_HOME : join(env.HOME || homedir(), ".config");
  return join(base, "agent-sessions", "config.json");
}

const isProfile = (p: unknown): p is Profile =>
  typeof p === "object" && p !== null && typeof (p as Profile).url === "string" && typeof (p as Profile).apiKey === "string";

/** The saved profiles; none when the file does not exist. A file that is not ours is an error naming it. */
export async function readProfiles(path = configPath()): Promise<Record<string, Profile>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new AppError("unavailable", `cannot read ${path}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError("validation_error", `${path} is not JSON; fix or remove it (agent-sessions login writes it again)`);
  }
  const profiles = (parsed as Partial<ConfigFile> | null)?.profiles;
  if (typeof profiles !== "object" || profiles === null || !Object.values(profiles).every(isProfile)) {
    throw new AppError("validation_error", `${path} does not hold {"profiles": {<name>: {"url", "apiKey"}}}; fix or remove it`);
  }
  return profiles;
}

async function writeProfiles(profiles: Record<string, Profile>, path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ profiles } satisfies ConfigFile, null, 2)}\n`, { mode: 0o600 });
  // The mode given to writeFile is masked by the umask: set it outright before the key is in place.
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

export async function saveProfile(name: string, profile: Profile, path = configPath()): Promise<void> {
  await writeProfiles({ ...(await readProfiles(path)), [name]: profile }, path);
}

/** Removes a profile; false when there was none of that name. */
export async function removeProfile(name: string, path = configPath()): Promise<boolean> {
  const profiles = await readProfiles(path);
  if (!(name in profiles)) return false;
  delete profiles[name];
  await writeProfiles(profiles, path);
  return true;
}
