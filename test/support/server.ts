/** A real server on an ephemeral port, started in this process, and a small JSON client for it. */
import type { AddressInfo } from "node:net";
import type { Clock } from "../../src/clock.js";
import type { Server } from "node:http";
import { loadConfig } from "../../src/config.js";
import { createApp } from "../../src/http/app.js";
import { createDeploymentsApp } from "../../src/deployments/http/app.js";
import type { KeyScope } from "../../src/accounts/store/organizations.js";
import { createHttpServer } from "../../src/http/server.js";
import type { LogLevel } from "../../src/config.js";
import { createLogger, printedAt, type LogSink } from "../../src/log.js";
import type { DeploymentParts } from "../../src/roles/deployments.js";
import { serveMetrics } from "../../src/roles/metrics.js";
import type { Core } from "../../src/roles/parts.js";
import { createRuntime } from "../../src/roles/runtime.js";
import type { MongoOptions } from "../../src/mongo/mongo.js";
import { checkResponse, forgetContract } from "./contract.js";
import { env } from "./hooks.js";
import { holdsSecret, leaked } from "./secrets.js";

export interface TestServer {
  url: string;
  /** The deployments interface of the same process. */
  deploymentsUrl: string;
  /** `GET /metrics` of the same process (served on its own port, as METRICS_PORT does). */
  metricsUrl: string;
  /** Every part of the server process, grouped as the roles get them (process, connections, stores, redis, inner, services). */
  core: Core;
  /** The deployments interface's parts (its store, provisioning and sweeps), for tests that run a sweep by hand. */
  deployments: DeploymentParts;
  /** Creates a fresh organization (or uses `org`) and an API key for it, with `scopes` (default: the core interface's). */
  newKey(org?: string, scopes?: KeyScope[]): Promise<string>;
  /** Ends every open connection of the core interface at once (streams drop; clients reconnect). */
  dropConnections(): void;
  close(): Promise<void>;
}

let orgCounter = 0;

/** The suite's MCP servers and token endpoints listen on 127.0.0.1: the outbound guard lets the service reach them only when told. */
export const LOOPBACK = "127.0.0.1/32";

/**
 * Every line the server logs, at every level, is scanned for the suite's secrets; only those at
 * LOG_LEVEL and above are printed (to stdout, where tests that read the log find them).
 */
function scannedLog(printed: LogLevel): LogSink {
  return (line, level) => {
    if (holdsSecret(line)) leaked(`a ${level} line the server logged`);
    if (printedAt(level, printed)) process.stdout.write(line + "\n");
  };
}

/**
 * The Redis namespace of a second deployment a test runs beside the suite's service (one with other
 * settings): its workers must not take the suite's work, nor the suite's its own. Removed with the suite's.
 */
export const otherDeployment = (name: string) => `${env.redisKeyPrefix}-${name}`;

/**
 * Starts the API and the roles ROLE names (default all) in this process, as `main.ts` does; `mongo`:
 * options of its MongoDB client; `clock`: the time its automations go by (its scheduler then does not
 * run by itself: the test runs one, when it has moved the clock).
 */
export async function startServer(extraEnv: Record<string, string> = {}, mongo: MongoOptions = {}, clock?: Clock): Promise<TestServer> {
  const config = loadConfig({
    MONGO_URL: env.mongoUrl,
    REDIS_URL: env.redisUrl,
    REDIS_KEY_PREFIX: env.redisKeyPrefix,
    PORT: "0",
    LOG_LEVEL: "error",
    VAULT_ENCRYPTION_KEY: env.vaultKey,
    OUTBOUND_ALLOWED_NETWORKS: LOOPBACK,
    ...extraEnv,
  });
  const runtime = await createRuntime(config, createLogger("debug", {}, scannedLog(config.logLevel)), { mongo, ...(clock ? { clock } : {}) });
  const core = runtime.core;
  if (config.role !== "api") await runtime.startWorker(config.role !== "scheduler");
  if (!clock && (config.role === "scheduler" || config.role === "all")) await runtime.startScheduler();
  const server: Server = createHttpServer(createApp(core.services)).listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  const deployments: Server = createHttpServer(createDeploymentsApp(runtime.deployments.services)).listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => deployments.once("listening", resolve));
  const metrics = await serveMetrics(core.redis.wakeups, 0, "127.0.0.1");
  const url = `http://127.0.0.1:${port}`;
  const deploymentsUrl = `http://127.0.0.1:${(deployments.address() as AddressInfo).port}`;
  return {
    url,
    deploymentsUrl,
    metricsUrl: `http://127.0.0.1:${(metrics.address() as AddressInfo).port}/metrics`,
    core,
    deployments: runtime.deployments,
    async newKey(org?: string, scopes?: KeyScope[]) {
      const name = org ?? `org-${process.pid}-${Date.now()}-${++orgCounter}`;
      const orgId = await core.stores.organizations.ensureOrganization(name);
      return (await core.stores.organizations.createKey(orgId, undefined, scopes)).key;
    },
    dropConnections() {
      server.closeAllConnections();
    },
    async close() {
      for (const s of [server, deployments, metrics]) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
      await runtime.close();
      forgetContract(url);
      forgetContract(deploymentsUrl);
    },
  };
}

export interface Reply<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * JSON over HTTP with an API key (`x-api-key`, or `Authorization: Bearer` for the deployments
 * interface); `raw` sends a string body as is. Every response is checked against the served document.
 */
export function client(baseUrl: string, key?: string, auth: "x-api-key" | "bearer" = "x-api-key") {
  async function send<T = any>(method: string, path: string, body?: unknown, opts: { headers?: Record<string, string>; raw?: string } = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (key && auth === "bearer") headers.authorization = `Bearer ${key}`;
    else if (key) headers["x-api-key"] = key;
    let payload: string | undefined;
    if (opts.raw !== undefined) payload = opts.raw;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !headers["content-type"]) headers["content-type"] = "application/json";
    const res = await fetch(baseUrl + path, { method, headers, body: payload });
    const text = await res.text();
    if (holdsSecret(text)) {
      leaked(`the response to ${method} ${path}`);
      throw new Error(`the response to ${method} ${path} holds a secret the tests sent`);
    }
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* non-JSON bodies stay text */
    }
    await checkResponse(baseUrl, method, path, res, parsed);
    return { status: res.status, headers: res.headers, body: parsed as T };
  }
  return {
    get: <T = any>(path: string, opts?: { headers?: Record<string, string> }) => send<T>("GET", path, undefined, opts),
    post: <T = any>(path: string, body?: unknown, opts?: { headers?: Record<string, string>; raw?: string }) => send<T>("POST", path, body, opts),
    patch: <T = any>(path: string, body?: unknown, opts?: { headers?: Record<string, string>; raw?: string }) => send<T>("PATCH", path, body, opts),
    put: <T = any>(path: string, body?: unknown, opts?: { headers?: Record<string, string>; raw?: string }) => send<T>("PUT", path, body, opts),
    delete: <T = any>(path: string) => send<T>("DELETE", path),
    send,
  };
}

export type Client = ReturnType<typeof client>;

export function agentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: "Support bot", modelName: "mock/echo", systemPrompt: "You help.", skills: [], tools: [], ...overrides };
}
