/**
 * The OpenAI-compatible endpoints of the configuration: `openai/<model>` (OPENAI_API_KEY, OPENAI_BASE_URL)
 * and the named ones of MODEL_ENDPOINTS, each a `<provider>` of its own (`local/<model>`). A key is read
 * from the variable an endpoint names, so the JSON holds no secret; errors name variables, never values.
 */
import { ConfigError } from "./config-error.js";

export interface ModelEndpoint {
  /** The `<provider>` part of the model names it serves. */
  name: string;
  /** Undefined for `openai` without OPENAI_BASE_URL: OpenAI's own API. */
  baseUrl: string | undefined;
  apiKey: string | undefined;
  /** The variable the key comes from, named in errors instead of it; undefined: the endpoint takes no key. */
  apiKeyEnv: string | undefined;
  /** Every model's window on this endpoint; undefined: the table of known models, else its default. */
  contextWindow: number | undefined;
}

type Env = Record<string, string | undefined>;

/** Providers that are not OpenAI-compatible endpoints, or are the built-in one. */
const BUILT_IN = ["anthropic", "mock", "openai"];
const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,63}$/;
const FIELDS = ["baseUrl", "apiKeyEnv", "contextWindow"];
const EXAMPLE = `{"local":{"baseUrl":"http://127.0.0.1:11434/v1","apiKeyEnv":"LOCAL_API_KEY","contextWindow":32768}}`;
export const MAX_ENDPOINTS = 32;

function httpUrl(raw: unknown, where: string): string {
  const fail = () => new ConfigError(`${where} must be an http(s) URL`);
  if (typeof raw !== "string") throw fail();
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw fail();
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw fail();
  return raw;
}

function endpoint(env: Env, name: string, raw: unknown): ModelEndpoint {
  const where = `MODEL_ENDPOINTS.${name}`;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new ConfigError(`${where} must be an object with baseUrl`);
  const fields = raw as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !FIELDS.includes(k));
  if (unknown.length > 0) throw new ConfigError(`${where} has unknown properties; it takes ${FIELDS.join(", ")}`);
  const baseUrl = httpUrl(fields.baseUrl, `${where}.baseUrl`);
  const keyEnv = fields.apiKeyEnv;
  if (keyEnv !== undefined && (typeof keyEnv !== "string" || !ENV_NAME.test(keyEnv)))
    throw new ConfigError(`${where}.apiKeyEnv must be the name of an environment variable (A-Z, 0-9, _)`);
  if (keyEnv !== undefined && !env[keyEnv]) throw new ConfigError(`${where}.apiKeyEnv names ${keyEnv}, which is not set`);
  const window = fields.contextWindow;
  if (window !== undefined && (typeof window !== "number" || !Number.isInteger(window) || window < 1_024 || window > 10_000_000))
    throw new ConfigError(`${where}.contextWindow must be an integer between 1024 and 10000000`);
  return { name, baseUrl, apiKey: keyEnv ? env[keyEnv] : undefined, apiKeyEnv: keyEnv, contextWindow: window };
}

/** `openai` first, then MODEL_ENDPOINTS' entries in their order. */
export function modelEndpoints(env: Env): ModelEndpoint[] {
  const openai: ModelEndpoint = {
    name: "openai",
    baseUrl: env.OPENAI_BASE_URL ? httpUrl(env.OPENAI_BASE_URL, "OPENAI_BASE_URL") : undefined,
    apiKey: env.OPENAI_API_KEY || undefined,
    apiKeyEnv: "OPENAI_API_KEY",
    contextWindow: undefined,
  };
  const raw = env.MODEL_ENDPOINTS;
  if (raw === undefined || raw.trim() === "") return [openai];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`MODEL_ENDPOINTS must be a JSON object of endpoints by name, e.g. ${EXAMPLE}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new ConfigError(`MODEL_ENDPOINTS must be a JSON object of endpoints by name, e.g. ${EXAMPLE}`);
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length > MAX_ENDPOINTS) throw new ConfigError(`MODEL_ENDPOINTS may name at most ${MAX_ENDPOINTS} endpoints`);
  return [
    openai,
    ...entries.map(([name, value]) => {
      if (!NAME.test(name)) throw new ConfigError("MODEL_ENDPOINTS: each name must be 1-32 lowercase letters, digits, _ or -, starting with a letter");
      if (BUILT_IN.includes(name)) throw new ConfigError(`MODEL_ENDPOINTS: ${name} is a built-in provider; choose another name`);
      return endpoint(env, name, value);
    }),
  ];
}

/** Every `<provider>` a model name may use here: the built-in ones and the configured endpoints. */
export function modelProviders(endpoints: readonly ModelEndpoint[]): string[] {
  return ["anthropic", "mock", ...endpoints.map((e) => e.name)];
}
