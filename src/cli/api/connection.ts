/**
 * Which service and key an API command uses: the profile named by `--profile` (else
 * `AGENT_SESSIONS_PROFILE`, else `default`), with `AGENT_SESSIONS_URL` and `AGENT_SESSIONS_API_KEY`
 * overriding its URL and key. The key is sent in a header and never printed: what identifies it on
 * screen is its id (`key_` and 32 hex digits of its SHA-256, as `ops keys list` shows it).
 */
import { createHash } from "node:crypto";
import { createAgentSessionsClient, type AgentSessionsClient } from "@agent-sessions/client";
import type { Command } from "commander";
import { AppError } from "../../errors.js";
import { configPath, DEFAULT_PROFILE, PROFILE_NAME, readProfiles } from "./profiles.js";

export const DEFAULT_URL = "http://localhost:8080";

export interface ApiTarget {
  client: AgentSessionsClient;
  url: string;
  profile: string;
}

/** The key's id, which the service's operators know it by; computed here, never asked of the service. */
export const keyIdOf = (apiKey: string) => `key_${createHash("sha256").update(apiKey).digest("hex").slice(0, 32)}`;

/** A URL the commands accept: http or https, without a trailing slash. */
export function baseUrl(raw: string, where: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("validation_error", `${where} is not a URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AppError("validation_error", `${where} must be an http or https URL`);
  if (url.username || url.password) throw new AppError("validation_error", `${where} must not hold credentials`);
  return url.toString().replace(/\/+$/, "");
}

/** A service that does not answer, said in one line with where it was looked for. */
export class Unreachable extends Error {
  constructor(url: string, err: unknown) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    super(`cannot reach the API at ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
}

/** A client of `url` whose connection failures name the URL rather than fetch's "fetch failed". */
export function clientOf(url: string, apiKey: string): AgentSessionsClient {
  const reaching = async (request: Request) => {
    try {
      return await globalThis.fetch(request);
    } catch (err) {
      if (request.signal.aborted) throw err;
      throw new Unreachable(url, err);
    }
  };
  return createAgentSessionsClient({ baseUrl: url, apiKey, fetch: reaching });
}

export function profileName(command: Command): string {
  const { profile } = command.optsWithGlobals<{ profile?: string }>();
  const name = profile ?? process.env.AGENT_SESSIONS_PROFILE ?? DEFAULT_PROFILE;
  if (!PROFILE_NAME.test(name)) throw new AppError("validation_error", `a profile name is 1..64 of A-Z a-z 0-9 . _ -, not ${JSON.stringify(name)}`);
  return name;
}

export async function apiTarget(command: Command): Promise<ApiTarget> {
  const profile = profileName(command);
  const saved = (await readProfiles())[profile];
  const apiKey = process.env.AGENT_SESSIONS_API_KEY || saved?.apiKey;
  if (!apiKey) {
    throw new AppError(
      "unauthorized",
      `no API key: no profile "${profile}" in ${configPath()} and AGENT_SESSIONS_API_KEY is not set (agent-sessions login${profile === DEFAULT_PROFILE ? "" : ` --profile ${profile}`} saves one)`,
    );
  }
  const url = process.env.AGENT_SESSIONS_URL ? baseUrl(process.env.AGENT_SESSIONS_URL, "AGENT_SESSIONS_URL") : (saved?.url ?? DEFAULT_URL);
  return { client: clientOf(url, apiKey), url, profile };
}
