/**
 * A cold service process against a warm one: with BENCH_SESSIONS sessions of BENCH_ORGS organizations
 * in the database, a fresh API process (`node dist/src/main.js`) answers BENCH_SAMPLES sessions' first
 * `GET /v1/sessions/{id}` and `GET /v1/sessions/{id}/events` (cold: first request per session and per
 * key, caches empty, code not yet optimized), then the same requests again (warm). Requests are
 * sequential, so each figure is one request's latency. Uses MONGO_URL/REDIS_URL (defaults: the local
 * services), its own database and Redis namespace, removed when done. BENCH_SERVICE runs another
 * build's entry point (e.g. one from before a change) against the same data (`service-process.ts`).
 */
import { cpus } from "node:os";
import { performance } from "node:perf_hooks";
import { Redis } from "ioredis";
import { MongoClient, type Db } from "mongodb";
import { configFromCreateBody, rateLimitsFrom, type AgentCreateBody } from "../src/agents/domain/agent-config.js";
import { newId } from "../src/ids.js";
import { EventLog } from "../src/sessions/redis/event-log.js";
import { Keys } from "../src/redis/keys.js";
import { AgentStore } from "../src/agents/store/agents.js";
import { ensureIndexes } from "../src/mongo/mongo.js";
import { OrganizationStore } from "../src/accounts/store/organizations.js";
import { toStored, type SessionDoc, type StoredSession } from "../src/sessions/store/session-shape.js";
import { describeDatabase } from "./database.js";
import { ServiceProcess, SERVICE_MAIN } from "./service-process.js";
import { mongoBase, redisUrl } from "./support.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 3000);
const ORGS = Number(process.env.BENCH_ORGS ?? 10);
const SAMPLES = Math.min(SESSIONS, Number(process.env.BENCH_SAMPLES ?? 200));
const run = `cold-${Date.now().toString(36)}`;

interface Target {
  sessionId: string;
  key: string;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summary(ms: number[]): { p50: number; p99: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** Organizations with a key and an agent each, and SESSIONS sessions spread over them; returns SAMPLES of them, every organization's in turn. */
async function seed(db: Db, log: EventLog): Promise<Target[]> {
  await ensureIndexes(db);
  const organizations = new OrganizationStore(db);
  const agents = new AgentStore(db, (_id, write) => write()); // seeding: the one writer
  const config = configFromCreateBody({ name: "Bench", modelName: "mock/echo", systemPrompt: "You help.", skills: [], tools: [] } as AgentCreateBody);
  const orgs: { orgId: string; agentId: string; key: string }[] = [];
  for (let i = 0; i < ORGS; i++) {
    const orgId = await organizations.ensureOrganization(`${run}-${i}`);
    const { key } = await organizations.createKey(orgId);
    orgs.push({ orgId, agentId: (await agents.create(orgId, config, rateLimitsFrom(undefined)))._id, key });
  }
  const targets: Target[] = [];
  const step = Math.floor(SESSIONS / SAMPLES);
  for (let start = 0; start < SESSIONS; start += 500) {
    const batch: SessionDoc[] = [];
    for (let i = start; i < Math.min(SESSIONS, start + 500); i++) {
      const org = orgs[i % ORGS]!;
      const now = new Date();
      batch.push({
        _id: newId("ses"),
        orgId: org.orgId,
        agentId: org.agentId,
        agentVersion: 1,
        subjectId: `subject-${i}`,
        role: null,
        title: null,
        titleSource: null,
        yoloMode: false,
        metadata: { bench: run },
        status: "idle",
        statusVersion: 0,
        usage: null,
        createdAt: now,
        updatedAt: now,
      });
      if (i % step === 0 && targets.length < SAMPLES) targets.push({ sessionId: batch.at(-1)!._id, key: org.key });
    }
    await db.collection<StoredSession>("sessions").insertMany(batch.map(toStored));
    await Promise.all(batch.map((s) => log.initialize(s._id, s)));
  }
  return targets;
}

async function timed(url: string, key: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { "x-api-key": key } });
  await res.arrayBuffer();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return ms;
}

/** One pass over the targets: each session's record, then its history. */
async function pass(base: string, targets: Target[]): Promise<{ session: number[]; events: number[] }> {
  const out = { session: [] as number[], events: [] as number[] };
  for (const t of targets) {
    out.session.push(await timed(`${base}/v1/sessions/${t.sessionId}`, t.key));
    out.events.push(await timed(`${base}/v1/sessions/${t.sessionId}/events`, t.key));
  }
  return out;
}

async function main(): Promise<void> {
  const url = new URL(mongoBase);
  url.pathname = `/${run.replace(/-/g, "_")}`;
  const mongo = new MongoClient(url.toString());
  await mongo.connect();
  const redis = new Redis(redisUrl);
  const db = mongo.db();
  const server = (await describeDatabase(db)).name;
  let service: ServiceProcess | undefined;
  try {
    const seeding = performance.now();
    const targets = await seed(db, new EventLog(redis, new Keys(run)));
    const seeded = performance.now() - seeding;
    service = await ServiceProcess.start({ mongoUrl: url.toString(), run }, "api");
    const cold = await pass(service.url, targets);
    const warm = await pass(service.url, targets);
    const row = (name: string, c: number[], w: number[]) => {
      const [sc, sw] = [summary(c), summary(w)];
      return `${name.padEnd(34)} cold p50 ${sc.p50.toFixed(1).padStart(7)} p99 ${sc.p99.toFixed(1).padStart(7)}   warm p50 ${sw.p50.toFixed(1).padStart(7)} p99 ${sw.p99.toFixed(1).padStart(7)}   cold/warm p50 ${(sc.p50 / sw.p50).toFixed(2)}`;
    };
    console.log(
      `cold vs warm API process, ms: ${SESSIONS} sessions in ${ORGS} organizations, ${targets.length} sampled; ${server}; ${cpus().length} CPUs, Node ${process.version}; service ${SERVICE_MAIN}; seeded in ${(seeded / 1000).toFixed(1)} s`,
    );
    console.log(row("GET /v1/sessions/{id}", cold.session, warm.session));
    console.log(row("GET /v1/sessions/{id}/events", cold.events, warm.events));
  } finally {
    await service?.close();
    await db.dropDatabase();
    await mongo.close();
    let cursor = "0";
    do {
      const [next, found] = await redis.scan(cursor, "MATCH", `${run}:*`, "COUNT", 1000);
      if (found.length > 0) await redis.del(...found);
      cursor = next;
    } while (cursor !== "0");
    redis.disconnect();
  }
}

await main();
