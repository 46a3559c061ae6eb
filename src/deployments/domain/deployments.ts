/**
 * Deployment rules, pure: the defaults of a create body, the update semantics (scalars and arrays
 * replaced, maps merged per key with `null` removing), and the status a deployment may move to. The
 * agent a deployment runs on is derived from its settings in `deployment-agent.ts`.
 */
import type { FromSchemas } from "../../../schemas/index.js";
import type { summaryProperties } from "../../../schemas/deployment.js";
import type { deploymentMcpServerSchema } from "../../../schemas/deployment-mcp-server.js";

export type DeploymentStatus = (typeof summaryProperties.status.enum)[number];

export interface DeploymentSandbox {
  enabled: boolean;
  type: string;
  persistentFilesystem: boolean;
}

/** An MCP server as the caller declared it; `tools` absent exposes every tool of the server. */
export type DeploymentMcpServer = FromSchemas<typeof deploymentMcpServerSchema>;

/** A skill as the caller declared it; `content` is what the agent runs with (fetched or read for `url` and `file`). */
export type DeploymentSkill =
  | { name: string; source: "inline"; content: string }
  | { name: string; source: "url"; url: string; content: string }
  | { name: string; source: "file"; path: string; content: string };

export interface DeploymentFeatures {
  memory: boolean;
  dreaming: boolean;
  automations: boolean;
  steering: boolean;
  filesystemWebhooks: boolean;
}

/** What an update may change; each applies to the next run of the agent. */
export interface DeploymentSettings {
  name: string;
  model: string;
  systemPrompt: string;
  mcpServers: DeploymentMcpServer[];
  skills: DeploymentSkill[];
  /** Environment variable name → secret reference (`sec_<id>`). */
  secrets: Record<string, string>;
  features: DeploymentFeatures;
}

export const DEFAULT_SANDBOX: DeploymentSandbox = { enabled: true, type: "docker", persistentFilesystem: true };
export const DEFAULT_FEATURES: DeploymentFeatures = { memory: true, dreaming: false, automations: true, steering: true, filesystemWebhooks: false };
export const DEFAULT_RUNTIME = "native";

/** The wire names of the feature flags, and ours. */
const FEATURE_KEYS: Record<string, keyof DeploymentFeatures> = {
  memory: "memory",
  dreaming: "dreaming",
  automations: "automations",
  steering: "steering",
  filesystem_webhooks: "filesystemWebhooks",
};

export type FeatureFlags = Partial<Record<keyof typeof FEATURE_KEYS, boolean | null>>;

/** Features of a create body over the defaults (a `null` there means the default). */
export function featuresOf(flags: FeatureFlags | undefined, base: DeploymentFeatures = DEFAULT_FEATURES): DeploymentFeatures {
  const out = { ...base };
  for (const [wire, value] of Object.entries(flags ?? {})) {
    const key = FEATURE_KEYS[wire];
    if (key) out[key] = value ?? DEFAULT_FEATURES[key];
  }
  return out;
}

export function featuresWire(f: DeploymentFeatures): Record<string, boolean> {
  return { memory: f.memory, dreaming: f.dreaming, automations: f.automations, steering: f.steering, filesystem_webhooks: f.filesystemWebhooks };
}

/** A map merged per key: a key set to `null` is removed, others are set, the rest kept. */
export function mergeMap<V>(current: Record<string, V>, changes: Record<string, V | null>): Record<string, V> {
  const out: Record<string, V> = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete out[key];
    else out[key] = value;
  }
  return out;
}

/** An update in our terms: scalars and arrays as replacements, maps as per-key changes. */
export interface SettingsChange {
  name?: string;
  model?: string;
  systemPrompt?: string;
  mcpServers?: DeploymentMcpServer[];
  skills?: DeploymentSkill[];
  secrets?: Record<string, string | null>;
  features?: FeatureFlags;
}

/** The settings after an update, and whether anything changed (an update that changes nothing is not written). */
export function applyChange(current: DeploymentSettings, change: SettingsChange): { next: DeploymentSettings; changed: boolean } {
  const next: DeploymentSettings = {
    name: change.name ?? current.name,
    model: change.model ?? current.model,
    systemPrompt: change.systemPrompt ?? current.systemPrompt,
    mcpServers: change.mcpServers ?? current.mcpServers,
    skills: change.skills ?? current.skills,
    secrets: change.secrets ? mergeMap(current.secrets, change.secrets) : current.secrets,
    features: change.features ? featuresAfter(current.features, change.features) : current.features,
  };
  return { next, changed: !sameValue(next, current) };
}

/** Features merged per key; `null` removes the caller's setting, which leaves the default. */
function featuresAfter(current: DeploymentFeatures, flags: FeatureFlags): DeploymentFeatures {
  return featuresOf(flags, current);
}

/** Deep equality of plain JSON values (key order ignored). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Transitions a deployment may make: provisioning ends ready or in error; an update of a deployment in error provisions again. */
const TRANSITIONS: Record<DeploymentStatus, DeploymentStatus[]> = {
  provisioning: ["ready", "error"],
  ready: [],
  error: ["provisioning"],
};

export function mayMove(from: DeploymentStatus, to: DeploymentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Secret references named by settings: each must exist in the account. */
export function secretRefsOf(secrets: Record<string, string>): string[] {
  return [...new Set(Object.values(secrets))];
}
