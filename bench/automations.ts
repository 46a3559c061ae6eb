/**
 * Automations due at the same moment: the time until every occurrence's session exists (created and
 * prompted), and the duplicates (must be 0), with one and with two scheduler processes
 * (`ROLE=scheduler`, real processes on the service's database and namespace). Baseline, in the same run:
 * as many sessions created and prompted directly through the services, as many at once as one scheduler
 * fires (SCHEDULER_CONCURRENCY). No worker runs: turns are not part of the figure.
 * Each round makes every automation due at once (a one-time schedule moved to now, as a clock reaching
 * it would), then counts the finished runs until all are there.
 * Options: BENCH_AUTOMATIONS (default 10000), SCHEDULER_CONCURRENCY (default 16).
 */
import { setTimeout as delay } from "node:timers/promises";
import pLimit from "p-limit";
import { ServiceProcess } from "./service-process.js";
import { conditions, fixed as f, startService, type Service } from "./support.js";

const COUNT = Number(process.env.BENCH_AUTOMATIONS ?? 10_000);
const CONCURRENCY = Number(process.env.SCHEDULER_CONCURRENCY ?? 16);

interface Round {
  label: string;
  seconds: number;
  duplicates: number;
  failed: number;
}

/** Makes every automation due now (its one-time occurrence moved to this moment), records and due set alike. */
async function makeDue(service: Service): Promise<Date> {
  const { mongo } = service.runtime.core.connections;
  const { automationQueue } = service.runtime.core.redis;
  const at = new Date();
  const automations = mongo.db.collection("automations");
  await automations.updateMany({}, { $set: { "schedule.at": at.getTime(), nextRunAt: at, lastOccurrenceAt: null, completedOccurrences: 0 } });
  const ids = await automations.find({}, { projection: { _id: 1 } }).toArray();
  await automationQueue.scheduleMany(ids.map((d) => ({ id: String(d._id), at: at.getTime() })));
  return at;
}

/** Waits until every run of the occurrence at `at` is finished; then counts failures and duplicate sessions. */
async function settle(service: Service, at: Date, started: number): Promise<Omit<Round, "label">> {
  const db = service.runtime.core.connections.mongo.db;
  for (;;) {
    if ((await db.collection("automation_runs").countDocuments({ scheduledFor: at, status: { $ne: "pending" } })) >= COUNT) break;
    await delay(250);
  }
  const seconds = (performance.now() - started) / 1000;
  const failed = await db.collection("automation_runs").countDocuments({ scheduledFor: at, status: "failed" });
  const sessions = await db
    .collection("sessions")
    .find({ createdAt: { $gte: at } }, { projection: { subjectId: 1 } })
    .toArray();
  const perSubject = new Map<string, number>();
  for (const s of sessions) perSubject.set(String(s.subjectId), (perSubject.get(String(s.subjectId)) ?? 0) + 1);
  return { seconds, failed, duplicates: [...perSubject.values()].reduce((n, c) => n + c - 1, 0) };
}

async function round(service: Service, schedulers: number): Promise<Round> {
  // No recovery of turns during the round (no worker runs them here): wake-ups stay pending.
  const env = { CLAIM_IDLE_MS: "3600000", SCHEDULER_CONCURRENCY: String(CONCURRENCY) };
  const children = await Promise.all(Array.from({ length: schedulers }, () => ServiceProcess.start(service, "scheduler", env)));
  try {
    const started = performance.now();
    const at = await makeDue(service);
    return { label: `${schedulers} scheduler process${schedulers > 1 ? "es" : ""}`, ...(await settle(service, at, started)) };
  } finally {
    await Promise.all(children.map((c) => c.close()));
  }
}

/** The baseline: sessions created and prompted straight through the services, CONCURRENCY at once. */
async function direct(service: Service, orgId: string, agentId: string): Promise<Round> {
  const { sessions, events } = service.runtime.core.services;
  const limit = pLimit(CONCURRENCY);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: COUNT }, (_, i) =>
      limit(async () => {
        const { view } = await sessions.create(orgId, { agentId, subjectId: `direct-${i}` });
        await events.post(orgId, view.doc._id, { events: [{ type: "user.message", content: [{ type: "text", text: "Check in." }] }] }, Promise.resolve());
      }),
    ),
  );
  return { label: "baseline: created and prompted directly", seconds: (performance.now() - started) / 1000, duplicates: 0, failed: 0 };
}

async function main(): Promise<void> {
  const service = await startService("bench-automations", { ROLE: "api" });
  try {
    const { automations } = service.runtime.core.services;
    const { organizations } = service.runtime.core.stores;
    const orgId = await organizations.ensureOrganization(service.run);
    const agent = await service.post("/v1/agents", { name: "automations", modelName: "mock/echo", systemPrompt: "You answer.", skills: [], tools: [] });
    const agentId = String(agent.id);
    const seeding = performance.now();
    const limit = pLimit(CONCURRENCY);
    await Promise.all(
      Array.from({ length: COUNT }, (_, i) => limit(() => automations.create(orgId, agentId, `subject-${i}`, { prompt: "Check in.", schedule: "1d" }))),
    );
    process.stdout.write(`seeded ${COUNT} automations in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`);
    const rounds = [await direct(service, orgId, agentId), await round(service, 1), await round(service, 2)];
    process.stdout.write(`\nautomations due at the same moment: ${COUNT}, scheduler concurrency ${CONCURRENCY}\n${await conditions()}\n\n`);
    process.stdout.write(`${"".padEnd(42)} ${"seconds".padStart(8)} ${"per s".padStart(8)} ${"dup".padStart(5)} ${"failed".padStart(7)}\n`);
    for (const r of rounds)
      process.stdout.write(
        `${r.label.padEnd(42)} ${f(r.seconds, 8, 1)} ${f(COUNT / r.seconds, 8, 0)} ${String(r.duplicates).padStart(5)} ${String(r.failed).padStart(7)}\n`,
      );
  } finally {
    await service.close();
  }
}

await main();
