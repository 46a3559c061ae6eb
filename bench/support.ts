/**
 * What every benchmark shares: the service started in this process on its own MongoDB database and
 * Redis namespace (removed at the end), an API key, percentiles, an SSE reader, and the conditions line
 * printed beside the figures (the client and the service share the machine's cores).
 */
import type { AddressInfo } from "node:net";
import { cpus, totalmem } from "node:os";
import { Redis } from "ioredis";
import { MongoClient } from "mongodb";
import { loadConfig } from "../src/config.js";
import { createApp } from "../src/http/app.js";
import { createHttpServer } from "../src/http/server.js";
import { withLocalState } from "../src/local-state.js";
import { createLogger } from "../src/log.js";
import { createRuntime, type Runtime } from "../src/roles/runtime.js";
import type { MongoOptions } from "../src/mongo/mongo.js";
import { describeDatabase } from "./database.js";

/** MONGO_URL and REDIS_URL, else the local services' (with their passwords), else the defaults. */
const stores = withLocalState(process.env, { vaultKey: false }).env;
export const mongoBase = stores.MONGO_URL ?? "mongodb://127.0.0.1:27017/agent_sessions";
export const redisUrl = stores.REDIS_URL ?? "redis://127.0.0.1:6379";

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function summary(ms: number[]): { p50: number; p95: number; p99: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
}

export const fixed = (n: number, width = 8, digits = 2) => n.toFixed(digits).padStart(width);

export async function conditions(): Promise<string> {
  const redis = new Redis(redisUrl);
  const version = /redis_version:(\S+)/.exec(await redis.info("server"))?.[1] ?? "unknown";
  redis.disconnect();
  const mongo = new MongoClient(mongoBase);
  await mongo.connect();
  const database = await describeDatabase(mongo.db());
  await mongo.close();
  return [
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB; node ${process.version}`,
    `services: Redis ${version}; ${database.name}; the benchmark client, the service and both stores share the cores`,
  ].join("\n");
}

/** Where a client reaches the service: its address, an API key, and a JSON POST that fails on any status ≥ 300. */
export interface Endpoint {
  base: string;
  key: string;
  post(path: string, body: unknown): Promise<Record<string, unknown>>;
}

export function endpoint(base: string, key: string): Endpoint {
  return {
    base,
    key,
    async post(path, body) {
      const res = await fetch(base + path, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(body) });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status >= 300) throw new Error(`${path} → ${res.status} ${JSON.stringify(json)}`);
      return json;
    },
  };
}

export interface Service extends Endpoint {
  /** The run's name: its Redis key prefix, and (with `_`) its database's. */
  run: string;
  /** Its MongoDB database's address. */
  mongoUrl: string;
  runtime: Runtime;
  close(): Promise<void>;
}

/** The API and a worker in this process (the API alone with `ROLE: "api"`), on a namespace of their own; `close` removes its data. */
export async function startService(name: string, env: Record<string, string> = {}, mongo: MongoOptions = {}): Promise<Service> {
  const run = `${name}-${Date.now().toString(36)}`;
  const mongoUrl = new URL(mongoBase);
  mongoUrl.pathname = `/${run.replace(/-/g, "_")}`;
  const config = loadConfig({
    ...process.env,
    MONGO_URL: mongoUrl.toString(),
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: run,
    LOG_LEVEL: "error",
    PORT: "0",
    ...env,
  });
  const runtime = await createRuntime(config, createLogger("error"), { mongo });
  if (config.role !== "api") await runtime.startWorker(true);
  const server = createHttpServer(createApp(runtime.core.services)).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { organizations } = runtime.core.stores;
  const { key } = await organizations.createKey(await organizations.ensureOrganization(run), 10_000_000);
  return {
    ...endpoint(base, key),
    run,
    mongoUrl: mongoUrl.toString(),
    runtime,
    async close() {
      server.closeAllConnections();
      server.close();
      await runtime.close();
      const mongo = new MongoClient(mongoUrl.toString());
      await mongo.connect();
      await mongo.db().dropDatabase();
      await mongo.close();
      const redis = new Redis(redisUrl);
      for (let cursor = "0"; ;) {
        const [next, found] = await redis.scan(cursor, "MATCH", `${run}:*`, "COUNT", 1000);
        if (found.length) await redis.del(...found);
        if ((cursor = next) === "0") break;
      }
      redis.disconnect();
    },
  };
}

/** Reads SSE frames from a fetch body and calls `onFrame` with each event type and data line. */
export async function sse(url: string, key: string, onFrame: (event: string, data: string) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch(url, { headers: { "x-api-key": key }, signal });
  const decoder = new TextDecoder();
  let buffer = "";
  void (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) onFrame(event, data);
        }
      }
    } catch {
      /* aborted at the end */
    }
  })();
}

/** Runs `clients` loops of `request` until `seconds` pass; returns requests per second. */
export async function rate(clients: number, seconds: number, request: (client: number, n: number) => Promise<void>): Promise<number> {
  let done = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let n = 0; performance.now() < deadline; n++) {
        await request(client, n);
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}
