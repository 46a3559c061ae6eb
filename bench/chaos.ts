/**
 * The chaos run: 2 API processes and 2 workers (clients pick an API process at random), CHAOS_SESSIONS
 * conversations (messages, interrupted slow turns, custom tools behind approvals; one resuming reader
 * each), while a killer SIGKILLs a random service process every CHAOS_KILL_EVERY_MS (its supervisor
 * starts it again), Redis is killed and started again twice (AOF, `appendfsync` CHAOS_APPENDFSYNC), and
 * the path to MongoDB is cut for 10 s once. Then, once quiet, the invariants (chaos-check.ts) are
 * checked and printed as counts; exits 1 when one fails. Defaults: 200 sessions, 300 s; CI runs a short
 * form (`npm run bench:chaos:short`).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { MongoClient } from "mongodb";
import { freePort } from "../test/support/ports.js";
import { ready, startRedis, Supervised } from "./chaos-cluster.js";
import { Redis } from "ioredis";
import { Keys } from "../src/redis/keys.js";
import { check, heldBy, quiesce, takenOver, type HeldWakeup } from "./chaos-check.js";
import { startChaosDatabase } from "./chaos-database.js";
import { Api, converse, Watch, type Tally } from "./chaos-traffic.js";
import { conditions, fixed, mongoBase, summary } from "./support.js";

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 300);
const SESSIONS = Number(process.env.CHAOS_SESSIONS ?? 200);
const KILL_EVERY_MS = Number(process.env.CHAOS_KILL_EVERY_MS ?? 4_000);
const APPENDFSYNC = (process.env.CHAOS_APPENDFSYNC ?? "always") as "always" | "everysec";
const MONGO_DOWN_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function inBatches<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

type Takeover = { seconds: number; at: number; victim: string } | "finished" | null;

/**
 * How long after `at` the dead worker's wake-up was taken over (polled every 50 ms); "finished" when it
 * was gone at once (the worker acknowledged it between the look and the kill: nothing to take over);
 * null when it was not taken over within 60 s.
 */
async function takeover(redis: Redis, keys: Keys, held: HeldWakeup, at: number, victim: string): Promise<Takeover> {
  for (let first = true; Date.now() - at < 60_000; first = false) {
    if (await takenOver(redis, keys, held).catch(() => false)) return first ? "finished" : { seconds: (Date.now() - at) / 1000, at, victim };
    await sleep(50);
  }
  return null;
}

async function main(): Promise<void> {
  console.log(await conditions());
  const run = `chaos-${Date.now().toString(36)}`;
  const redis = await startRedis(APPENDFSYNC);
  const database = await startChaosDatabase(mongoBase);
  const mongoUrl = database.url(run.replace(/-/g, "_"));
  const env = { MONGO_URL: mongoUrl, REDIS_URL: redis.url, REDIS_KEY_PREFIX: run };

  // Not a synchronous child: the MongoDB path may be a proxy in this process, which must keep forwarding.
  const key = (
    await promisify(execFile)(process.execPath, ["dist/src/cli/main.js", "keys", "create", "--org", run], { env: { ...process.env, ...env }, encoding: "utf8" })
  ).stdout.trim();
  const mongo = new MongoClient(mongoUrl);
  await mongo.connect();
  // The run's own ceiling: hundreds of clients retrying through deaths would meet the default one.
  await mongo
    .db()
    .collection("api_keys")
    .updateMany({}, { $set: { requestsPerMinute: 1_000_000 } });

  const processes = [
    new Supervised("api-1", "api", await freePort(), env),
    new Supervised("api-2", "api", await freePort(), env),
    new Supervised("worker-1", "worker", await freePort(), env),
    new Supervised("worker-2", "worker", await freePort(), env),
  ];
  processes.forEach((p) => p.start());
  const apis = processes.filter((p) => p.role === "api");
  await ready(apis);
  const api = new Api(
    apis.map((p) => p.url),
    key,
  );

  const agent = await api.call("POST", "/v1/agents", {
    name: "chaos",
    modelName: "mock/echo",
    systemPrompt: "You answer under fire.",
    skills: [],
    tools: [
      {
        type: "custom_tool",
        name: "lookup",
        description: "Finds an order",
        input_schema: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
      },
    ],
  });
  if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${JSON.stringify(agent.body)}`);
  const sessionIds = await inBatches(
    Array.from({ length: SESSIONS }, (_, i) => i),
    20,
    async (i) => {
      const created = await api.call("POST", "/v1/sessions", { agentId: agent.body.id, subjectId: `${run}-subject-${i}` });
      if (created.status !== 201) throw new Error(`session: ${created.status} ${JSON.stringify(created.body)}`);
      api.accepted.set(created.body.id as string, []);
      return created.body.id as string;
    },
  );
  const watches = sessionIds.map((id, i) => new Watch(apis[i % apis.length]!.url, key, id));

  const tally: Tally = { turns: 0, approvals: 0, toolResults: 0, interrupts: 0, stuck: [] };
  const started = Date.now();
  const until = started + SECONDS * 1000;
  const kills = { api: 0, worker: 0 };
  /** Per wake-up a killed worker held: when it was killed, and how long until another worker claimed it. */
  const takeovers: Promise<Takeover>[] = [];
  const workerKills: { name: string; at: number }[] = [];
  const probe = new Redis(redis.url);
  probe.on("error", () => undefined);
  const keys = new Keys(run);
  /** When a store was down (from, to): takeovers near them wait for the store, not for the claim. */
  const storeFaults: [number, number][] = [];
  const chaos = (async () => {
    const redisCrashes = [SECONDS / 3, (2 * SECONDS) / 3].map((s) => started + s * 1000);
    let mongoOutageAt: number | null = started + (SECONDS / 2) * 1000;
    while (Date.now() < until) {
      await sleep(KILL_EVERY_MS * (0.5 + Math.random()));
      if (Date.now() >= until) break;
      if (redisCrashes[0] !== undefined && Date.now() >= redisCrashes[0]) {
        redisCrashes.shift();
        const from = Date.now();
        await redis.crash(1_000);
        storeFaults.push([from, Date.now()]);
        console.log(`  t=${((Date.now() - started) / 1000).toFixed(0)}s Redis killed and started again`);
        continue;
      }
      if (mongoOutageAt !== null && Date.now() >= mongoOutageAt) {
        mongoOutageAt = null;
        const from = Date.now();
        await database.outage(MONGO_DOWN_MS);
        storeFaults.push([from, Date.now()]);
        console.log(`  t=${((Date.now() - started) / 1000).toFixed(0)}s ${database.outageKind} for ${MONGO_DOWN_MS / 1000} s`);
        continue;
      }
      const victim = processes[Math.floor(Math.random() * processes.length)]!;
      // The wake-ups the killed worker had in hand: the ones another worker must take over.
      const held = victim.role === "worker" && victim.pid !== undefined ? await heldBy(probe, keys, victim.pid).catch(() => []) : [];
      const at = Date.now();
      victim.kill();
      held.forEach((h) => takeovers.push(takeover(probe, keys, h, at, victim.name)));
      if (victim.role === "worker") workerKills.push({ name: victim.name, at });
      kills[victim.role]++;
    }
  })();
  await Promise.all([chaos, ...watches.map((w) => converse(api, w, until, tally))]);
  const trafficSeconds = (Date.now() - started) / 1000;

  const taken = await Promise.all(takeovers);
  const running = await quiesce(api, sessionIds, 180_000);
  probe.disconnect();
  const findings = await check(api, watches, redis.url, run);
  await Promise.all(watches.map((w) => w.stop()));

  const nearStoreFault = (at: number) => storeFaults.some(([from, to]) => at >= from - 5_000 && at <= to + 5_000);
  const samples = taken.filter((x): x is { seconds: number; at: number; victim: string } => x !== null && x !== "finished");
  const never = taken.filter((x) => x === null).length;
  const clear = samples.filter((x) => !nearStoreFault(x.at)).map((x) => x.seconds);
  const t = summary(clear.length ? clear : [0]);
  const all = summary(samples.length ? samples.map((x) => x.seconds) : [0]);
  const statuses = [...api.statuses]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${n} × ${s}`)
    .join(", ");
  const failures =
    findings.missing.length +
    findings.duplicated.length +
    findings.gaps.length +
    running.length +
    findings.running.length +
    findings.readers.length +
    findings.wakeupBacklog +
    api.unexpected.length +
    api.unanswered.length;
  console.log(`chaos: ${SESSIONS} sessions, ${trafficSeconds.toFixed(0)} s of traffic; Redis appendfsync ${APPENDFSYNC}`);
  console.log(
    `  faults         ${kills.api} API and ${kills.worker} worker SIGKILLs (every ~${KILL_EVERY_MS / 1000} s), 2 Redis kills, ${database.outageKind} ${MONGO_DOWN_MS / 1000} s`,
  );
  console.log(`  restarts       ${processes.map((p) => `${p.name} ${p.restarts}`).join(", ")}`);
  console.log(`  traffic        ${tally.turns} turns, ${tally.approvals} approvals, ${tally.toolResults} custom tool results, ${tally.interrupts} interrupts`);
  console.log(`  answers        ${statuses}; ${api.networkErrors} requests without an answer (retried; ${api.timeouts} of them silent for 30 s)`);
  console.log(
    `  takeover       worker killed → another worker claims each wake-up it held: p50 ${fixed(t.p50, 6)} s  p99 ${fixed(t.p99, 6)} s  (n=${clear.length}; target p99 ≤ 5 s)`,
  );
  console.log(
    `                 with kills near a store outage too: p50 ${fixed(all.p50, 6)} s  p99 ${fixed(all.p99, 6)} s  (n=${samples.length}; ${never} never taken over within 60 s)`,
  );
  // The slow ones, each with what else happened then: another worker killed too, a store down.
  const slow = new Map<string, number>();
  for (const s of samples.filter((x) => x.seconds > 5).sort((a, b) => b.seconds - a.seconds)) {
    const others = workerKills
      .filter((k) => k.name !== s.victim && k.at > s.at - 5_000 && k.at < s.at + s.seconds * 1000)
      .map((k) => `${k.name} killed at ${((k.at - s.at) / 1000).toFixed(1)} s`);
    const line = `${s.seconds.toFixed(1)} s after ${s.victim}'s kill at t=${((s.at - started) / 1000).toFixed(0)} s${others.length ? `; ${others.join(", ")}` : ""}${nearStoreFault(s.at) ? "; a store down near it" : ""}`;
    slow.set(line, (slow.get(line) ?? 0) + 1);
  }
  for (const [line, n] of [...slow].slice(0, 8)) console.log(`                 slow: ${n} × ${line}`);
  console.log(`invariants (each should be 0):`);
  console.log(
    `  202s missing from history       ${findings.missing.length}  (of ${[...api.accepted.values()].reduce((n, l) => n + l.length, 0)} accepted; ${findings.events} events in history)`,
  );
  console.log(`  duplicated events or messages   ${findings.duplicated.length}`);
  console.log(`  sessions with sequence gaps     ${findings.gaps.length}`);
  console.log(`  sessions left running           ${Math.max(running.length, findings.running.length)}`);
  console.log(`  wake-ups left undelivered       ${findings.wakeupBacklog}${findings.wakeupDetail ? `  (${findings.wakeupDetail})` : ""}`);
  console.log(`  readers that missed or repeated ${findings.readers.length}`);
  console.log(`  5xx other than 503              ${api.unexpected.length}`);
  console.log(`  requests never answered         ${api.unanswered.length}`);
  console.log(`  steps stuck past 150 s          ${tally.stuck.length}`);
  for (const line of [...findings.missing, ...findings.duplicated, ...findings.readers, ...api.unexpected, ...api.unanswered, ...tally.stuck].slice(0, 10))
    console.log(`    ${line}`);
  const errors = processes.flatMap((p) => p.errors);
  // Each line by its message and its error's name and message, so a failure is told without CHAOS_VERBOSE.
  const messages = new Map<string, number>();
  for (const line of errors) {
    const entry = JSON.parse(line) as { msg?: string; err?: { name?: string; message?: string } };
    const why = entry.err ? `: ${entry.err.name ?? "?"} ${String(entry.err.message ?? "").slice(0, 160)}` : "";
    const msg = `${entry.msg ?? "?"}${why}`;
    messages.set(msg, (messages.get(msg) ?? 0) + 1);
  }
  console.log(`  error lines logged: ${errors.length}${errors.length ? ` (${[...messages].map(([m, n]) => `${n} × ${m}`).join(", ")})` : ""}`);
  if (process.env.CHAOS_VERBOSE) for (const line of errors) console.log(`    ${line.slice(0, 1500)}`);

  await Promise.all(processes.map((p) => p.stop()));
  await mongo.db().dropDatabase();
  await mongo.close();
  await database.stop();
  await redis.stop();
  process.exit(failures + tally.stuck.length > 0 ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
