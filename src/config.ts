/** Environment → validated, typed configuration. Every problem names the variable at fault. */
import { tmpdir } from "node:os";
import { join } from "node:path";
import ipaddr from "ipaddr.js";
import type { DockerSettings } from "./agent-tools/sandbox/docker.js";
import { ConfigError } from "./config-error.js";
import { modelEndpoints, modelProviders, type ModelEndpoint } from "./config-endpoints.js";

export type Role = "api" | "worker" | "scheduler" | "all";
export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Config {
  port: number;
  /** The deployments interface's own port (api and all roles); absent: the interface is not served. */
  deploymentsPort: number | undefined;
  /** Where every role serves `GET /metrics` (Prometheus), apart from the API; absent: not served. */
  metricsPort: number | undefined;
  /** The deployments interface's address as callers reach it (events.url); absent: from each request's Host. */
  deploymentsPublicUrl: string | undefined;
  /** The model of a deployment created without one. */
  deploymentsDefaultModel: string;
  /** How long a process's hold on a deployment's provisioning or teardown lasts; a dead holder's lapses after it. */
  deploymentLeaseMs: number;
  /** How often a scheduler looks for deployments whose provisioning or teardown was left by a dead process. */
  deploymentSweepMs: number;
  /** How long a deployment with `features.dreaming` must be idle after activity before it dreams. */
  dreamIdleMs: number;
  /** Webhook deliveries: attempts before one fails for good, the first retry's delay (doubling up to the max), each attempt's time limit. */
  webhookMaxAttempts: number;
  webhookRetryFirstMs: number;
  webhookRetryMaxMs: number;
  webhookTimeoutMs: number;
  /** How often a scheduler sends the webhook deliveries that are due. */
  webhookSweepMs: number;
  /** How long a deleted deployment's retained workspace snapshot is kept. */
  snapshotRetentionMs: number;
  /** The `docker` sandbox backend: whether to look for an engine, and how containers are made (`src/agent-tools/sandbox/docker.ts`). */
  docker: DockerSettings & { enabled: boolean };
  host: string;
  mongoUrl: string;
  redisUrl: string;
  /** Seed nodes (`host:port`) of a Redis Cluster, from REDIS_CLUSTER_NODES; empty: REDIS_URL decides. */
  redisClusterNodes: string[];
  role: Role;
  logLevel: LogLevel;
  shutdownTimeoutMs: number;
  anthropicApiKey: string | undefined;
  anthropicBaseUrl: string | undefined;
  /** First backoff of the Anthropic provider's retries of transient errors; doubles per attempt. */
  anthropicRetryBaseMs: number;
  /** Extended thinking's budget for models that support it (0: never requested). */
  anthropicThinkingBudget: number;
  /** The OpenAI-compatible endpoints: `openai` first, then those MODEL_ENDPOINTS names (`config-endpoints.ts`). */
  modelEndpoints: ModelEndpoint[];
  /** First backoff of the OpenAI-compatible providers' retries of transient errors; doubles per attempt. */
  openaiRetryBaseMs: number;
  /** Turn lock lifetime; the holder extends it while it works, a dead holder's lapses after this. */
  lockTtlMs: number;
  /** A wake-up unacknowledged (or a session hint unserved) this long, whose session's lock is free, is taken over by another worker. */
  claimIdleMs: number;
  /** How often workers look for such work (and apply credit debits a stopped worker left owed). */
  sweepIntervalMs: number;
  workerConcurrency: number;
  /** Occurrences one scheduler process fires at once. */
  schedulerConcurrency: number;
  /** How often one scheduler puts every scheduled automation's next run time back in the due set. */
  automationRepairMs: number;
  /** How long a scheduler's claim of a due automation holds; a dead scheduler's claims lapse after it. */
  automationLeaseMs: number;
  /** Bounds of a worker's cache of transcripts between model calls: sessions, and estimated megabytes. */
  transcriptCacheSessions: number;
  transcriptCacheMb: number;
  sseKeepAliveMs: number;
  /** An SSE client that leaves more than this many bytes unread is disconnected. */
  sseMaxBufferedBytes: number;
  /** Event streams (sessions' and deployments') an organization may hold open at once, across processes. */
  sseStreamsPerOrganization: number;
  redisKeyPrefix: string;
  /** Where per-session workspaces of the built-in file, terminal and code tools live. */
  workspaceRoot: string;
  /** Limits of each tool process: memory (RLIMIT_DATA) and file size (RLIMIT_FSIZE), in MiB. */
  sandboxMemoryMb: number;
  sandboxFileSizeMb: number;
  /** How long a background process of `terminal` may run before it is killed. */
  sandboxBackgroundTimeoutMs: number;
  /**
   * Whether the agent's commands may run without isolation on a worker that cannot make namespaces
   * (`SANDBOX_UNISOLATED=allow`); refused otherwise. Never used where isolation works.
   */
  sandboxUnisolatedAllowed: boolean;
  /**
   * Keys of vault credentials' encryption: `current` seals, every key opens (older ones stay listed
   * while a rotation re-encrypts). Absent: credentials can be neither stored nor used.
   */
  vaultKeys: { current: Buffer; older: Buffer[] } | undefined;
  /** The backend of the `web_search` tool; absent, the tool is left out of the model's tools. */
  webSearch: { provider: "searxng"; url: string } | undefined;
  /** How long a custom tool call may wait for its first result (even `running`) before it fails. */
  customToolKickoffMs: number;
  /** Share of the model's window (percent) past which a turn compacts its older conversation; 0: only on request. */
  compactionThresholdPercent: number;
  /** How long one request to an MCP server (connect, list, call) may take before it is an error result. */
  mcpTimeoutMs: number;
  /**
   * Networks the outbound guard lets the service reach although they are not public (CIDRs or single
   * addresses, validated): e.g. an MCP server on the same private network. Empty: public unicast only.
   */
  outboundAllowedNetworks: string[];
}

export { ConfigError };

type Env = Record<string, string | undefined>;

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(", ")}`);
  }
  return raw as T;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}`);
  return value;
}

function pattern(env: Env, name: string, fallback: string, re: RegExp, description: string): string {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!re.test(raw)) throw new ConfigError(`${name} must be ${description}`);
  return raw;
}

function url(env: Env, name: string, fallback: string, schemes: readonly string[]): string {
  const raw = env[name] || fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL`);
  }
  if (!schemes.includes(parsed.protocol.replace(/:$/, ""))) {
    throw new ConfigError(`${name} must use one of the schemes ${schemes.join(", ")}`);
  }
  return raw;
}

/** A 256-bit key, base64 (e.g. `openssl rand -base64 32`); never echoed in an error. */
function aesKey(name: string, raw: string): Buffer {
  const key = Buffer.from(raw.trim(), "base64");
  if (key.length !== 32 || key.toString("base64") !== raw.trim()) throw new ConfigError(`${name} must be 32 bytes, base64-encoded (openssl rand -base64 32)`);
  return key;
}

function vaultKeys(env: Env): Config["vaultKeys"] {
  const current = env.VAULT_ENCRYPTION_KEY;
  const older = (env.VAULT_DECRYPTION_KEYS ?? "").split(",").filter((k) => k.trim() !== "");
  if (!current) {
    if (older.length > 0) throw new ConfigError("VAULT_DECRYPTION_KEYS needs VAULT_ENCRYPTION_KEY beside it");
    return undefined;
  }
  return { current: aesKey("VAULT_ENCRYPTION_KEY", current), older: older.map((k, i) => aesKey(`VAULT_DECRYPTION_KEYS (entry ${i + 1})`, k)) };
}

/** An IPv4 address in four decimal parts or an IPv6 address without a zone, optionally with /prefix. */
function isNetwork(entry: string): boolean {
  if (entry.includes("%")) return false;
  if (entry.includes("/")) return ipaddr.IPv4.isValidCIDRFourPartDecimal(entry) || ipaddr.IPv6.isValidCIDR(entry);
  return ipaddr.IPv4.isValidFourPartDecimal(entry) || ipaddr.IPv6.isValid(entry);
}

/** Comma-separated networks; the bad entry is named, since the list may be long. */
function networks(env: Env, name: string): string[] {
  const entries = (env[name] ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "");
  const bad = entries.find((e) => !isNetwork(e));
  if (bad !== undefined) throw new ConfigError(`${name} must be comma-separated CIDRs or IP addresses; "${bad}" is neither`);
  return entries;
}

function webSearch(env: Env): Config["webSearch"] {
  const provider = oneOf(env, "WEB_SEARCH_PROVIDER", ["none", "searxng"] as const, "none");
  if (provider === "none") {
    if (env.WEB_SEARCH_URL) throw new ConfigError("WEB_SEARCH_URL needs WEB_SEARCH_PROVIDER beside it (searxng)");
    return undefined;
  }
  if (!env.WEB_SEARCH_URL) throw new ConfigError("WEB_SEARCH_PROVIDER=searxng needs WEB_SEARCH_URL, the instance's base URL");
  return { provider, url: url(env, "WEB_SEARCH_URL", "", ["http", "https"]) };
}

export function loadConfig(env: Env = process.env): Config {
  const config: Config = {
    port: integer(env, "PORT", 8080, 0, 65535),
    deploymentsPort: env.DEPLOYMENTS_PORT ? integer(env, "DEPLOYMENTS_PORT", 8081, 0, 65535) : undefined,
    metricsPort: env.METRICS_PORT ? integer(env, "METRICS_PORT", 9464, 0, 65535) : undefined,
    deploymentsPublicUrl: env.DEPLOYMENTS_PUBLIC_URL ? url(env, "DEPLOYMENTS_PUBLIC_URL", "", ["http", "https"]).replace(/\/+$/, "") : undefined,
    deploymentsDefaultModel: pattern(
      env,
      "DEPLOYMENTS_DEFAULT_MODEL",
      "anthropic/claude-sonnet-4-5",
      /^[a-z][a-z0-9_-]{0,31}\/[A-Za-z0-9][A-Za-z0-9._:@/-]{0,150}$/,
      "<provider>/<model>",
    ),
    deploymentLeaseMs: integer(env, "DEPLOYMENT_LEASE_MS", 60_000, 500, 3_600_000),
    deploymentSweepMs: integer(env, "DEPLOYMENT_SWEEP_INTERVAL_MS", 10_000, 100, 3_600_000),
    dreamIdleMs: integer(env, "DEPLOYMENT_DREAM_IDLE_MS", 1_800_000, 100, 7 * 86_400_000),
    webhookMaxAttempts: integer(env, "WEBHOOK_MAX_ATTEMPTS", 10, 1, 100),
    webhookRetryFirstMs: integer(env, "WEBHOOK_RETRY_FIRST_MS", 5_000, 10, 3_600_000),
    webhookRetryMaxMs: integer(env, "WEBHOOK_RETRY_MAX_MS", 3_600_000, 10, 86_400_000),
    webhookTimeoutMs: integer(env, "WEBHOOK_TIMEOUT_MS", 10_000, 100, 120_000),
    webhookSweepMs: integer(env, "WEBHOOK_SWEEP_INTERVAL_MS", 1_000, 50, 60_000),
    snapshotRetentionMs: integer(env, "DEPLOYMENT_SNAPSHOT_RETENTION_MS", 30 * 86_400_000, 1_000, 365 * 86_400_000),
    docker: {
      enabled: oneOf(env, "DEPLOYMENT_DOCKER", ["auto", "off"] as const, "auto") === "auto",
      host: env.DOCKER_HOST
        ? pattern(env, "DOCKER_HOST", "", /^(unix|tcp|ssh|fd):\/\/\S{1,500}$/, "a Docker address (unix://, tcp://, ssh:// or fd://)")
        : undefined,
      // Never starting with "-": each is one argument of the client's command line.
      image: pattern(env, "DEPLOYMENT_DOCKER_IMAGE", "debian:bookworm-slim", /^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$/, "an image reference"),
      network: pattern(env, "DEPLOYMENT_DOCKER_NETWORK", "bridge", /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "a Docker network name"),
      cpus: integer(env, "DEPLOYMENT_DOCKER_CPUS", 1, 1, 256),
    },
    host: env.HOST || "0.0.0.0",
    mongoUrl: url(env, "MONGO_URL", "mongodb://127.0.0.1:27017/agent_sessions", ["mongodb", "mongodb+srv"]),
    redisUrl: url(env, "REDIS_URL", "redis://127.0.0.1:6379", ["redis", "rediss", "redis+cluster", "rediss+cluster"]),
    redisClusterNodes: env.REDIS_CLUSTER_NODES
      ? pattern(
          env,
          "REDIS_CLUSTER_NODES",
          "",
          /^[A-Za-z0-9.:[\]-]{1,255}:\d{1,5}(,[A-Za-z0-9.:[\]-]{1,255}:\d{1,5}){0,31}$/,
          "comma-separated host:port pairs",
        ).split(",")
      : [],
    role: oneOf(env, "ROLE", ["api", "worker", "scheduler", "all"] as const, "all"),
    logLevel: oneOf(env, "LOG_LEVEL", ["debug", "info", "warn", "error"] as const, "info"),
    shutdownTimeoutMs: integer(env, "SHUTDOWN_TIMEOUT_MS", 10_000, 0, 600_000),
    anthropicApiKey: env.ANTHROPIC_API_KEY || undefined,
    anthropicBaseUrl: env.ANTHROPIC_BASE_URL ? url(env, "ANTHROPIC_BASE_URL", "", ["http", "https"]) : undefined,
    anthropicRetryBaseMs: integer(env, "ANTHROPIC_RETRY_BASE_MS", 500, 0, 60_000),
    anthropicThinkingBudget: integer(env, "ANTHROPIC_THINKING_BUDGET_TOKENS", 4_096, 0, 32_000),
    modelEndpoints: modelEndpoints(env),
    openaiRetryBaseMs: integer(env, "OPENAI_RETRY_BASE_MS", 500, 0, 60_000),
    lockTtlMs: integer(env, "LOCK_TTL_MS", 2_000, 500, 3_600_000),
    claimIdleMs: integer(env, "CLAIM_IDLE_MS", 2_000, 100, 86_400_000),
    sweepIntervalMs: integer(env, "SWEEP_INTERVAL_MS", 500, 100, 3_600_000),
    workerConcurrency: integer(env, "WORKER_CONCURRENCY", 32, 1, 10_000),
    schedulerConcurrency: integer(env, "SCHEDULER_CONCURRENCY", 16, 1, 1_000),
    automationRepairMs: integer(env, "AUTOMATION_REPAIR_INTERVAL_MS", 300_000, 1_000, 86_400_000),
    automationLeaseMs: integer(env, "AUTOMATION_CLAIM_LEASE_MS", 60_000, 1_000, 3_600_000),
    transcriptCacheSessions: integer(env, "TRANSCRIPT_CACHE_SESSIONS", 1_000, 0, 1_000_000),
    transcriptCacheMb: integer(env, "TRANSCRIPT_CACHE_MB", 128, 0, 1_000_000),
    sseKeepAliveMs: integer(env, "SSE_KEEPALIVE_MS", 15_000, 100, 3_600_000),
    sseMaxBufferedBytes: integer(env, "SSE_MAX_BUFFERED_BYTES", 8 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
    sseStreamsPerOrganization: integer(env, "SSE_STREAMS_PER_ORGANIZATION", 1_000, 1, 1_000_000),
    workspaceRoot: env.WORKSPACE_ROOT || join(tmpdir(), "agent-sessions-workspaces"),
    sandboxMemoryMb: integer(env, "SANDBOX_MEMORY_MB", 1024, 64, 1_048_576),
    sandboxFileSizeMb: integer(env, "SANDBOX_FILE_SIZE_MB", 1024, 1, 1_048_576),
    sandboxBackgroundTimeoutMs: integer(env, "SANDBOX_BACKGROUND_TIMEOUT_MS", 3_600_000, 1_000, 604_800_000),
    sandboxUnisolatedAllowed: oneOf(env, "SANDBOX_UNISOLATED", ["refuse", "allow"] as const, "refuse") === "allow",
    vaultKeys: vaultKeys(env),
    mcpTimeoutMs: integer(env, "MCP_TIMEOUT_MS", 30_000, 100, 600_000),
    customToolKickoffMs: integer(env, "CUSTOM_TOOL_KICKOFF_MS", 300_000, 100, 86_400_000),
    compactionThresholdPercent: integer(env, "COMPACTION_THRESHOLD_PERCENT", 80, 0, 99),
    webSearch: webSearch(env),
    outboundAllowedNetworks: networks(env, "OUTBOUND_ALLOWED_NETWORKS"),
    redisKeyPrefix: pattern(env, "REDIS_KEY_PREFIX", "as", /^[a-z0-9_-]{1,32}$/, "1-32 lowercase letters, digits, _ or -"),
  };
  // The API's smallest thinking budget is 1,024 tokens.
  if (config.anthropicThinkingBudget > 0 && config.anthropicThinkingBudget < 1_024)
    throw new ConfigError("ANTHROPIC_THINKING_BUDGET_TOKENS must be 0 (off) or 1024..32000");
  const providers = modelProviders(config.modelEndpoints);
  const defaultProvider = config.deploymentsDefaultModel.slice(0, config.deploymentsDefaultModel.indexOf("/"));
  if (!providers.includes(defaultProvider)) throw new ConfigError(`DEPLOYMENTS_DEFAULT_MODEL's provider must be one of: ${providers.join(", ")}`);
  return config;
}
