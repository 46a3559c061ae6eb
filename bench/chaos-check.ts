/**
 * The chaos run's invariants, checked once the cluster is quiet: every event answered 202 is in history
 * exactly once; sequences are gapless; no session is left running; no wake-up is left undelivered; every
 * reader saw every durable event once, in order.
 */
import { hostname } from "node:os";
import { Redis } from "ioredis";
import { Keys } from "../src/redis/keys.js";
import { WORKER_GROUP, Wakeups } from "../src/sessions/redis/wakeups.js";
import type { Api, Watch } from "./chaos-traffic.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Findings {
  events: number;
  /** Events answered 202 that history does not hold. */
  missing: string[];
  /** Ids history holds more than once, and user messages it holds twice (a retried send applied twice). */
  duplicated: string[];
  /** Sessions whose sequences skip or repeat. */
  gaps: string[];
  /** Sessions still running (or not readable) at the end. */
  running: string[];
  /** Readers whose durable events differ from history. */
  readers: string[];
  wakeupBacklog: number;
  /** Where a backlog is: the group's lag and entries read, and each consumer's pending count, idleness and heartbeat. */
  wakeupDetail: string;
}

interface Stored {
  id: string;
  sequence: number;
  type: string;
  payload?: { content?: { text?: string }[] };
}

async function history(api: Api, sessionId: string): Promise<Stored[]> {
  const out: Stored[] = [];
  for (let after = 0; ;) {
    const page = await api.call("GET", `/v1/sessions/${sessionId}/events?after=${after}&limit=100`);
    if (page.status !== 200) throw new Error(`history of ${sessionId}: ${page.status}`);
    const data = page.body.data as Stored[];
    out.push(...data);
    const pagination = page.body.pagination as { hasMore: boolean; after: number };
    if (!pagination.hasMore) return out;
    after = pagination.after;
  }
}

/** Waits (up to `timeoutMs`) until no session is running; answers those still running. */
export async function quiesce(api: Api, sessionIds: string[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let running = sessionIds;
  while (running.length > 0 && Date.now() < deadline) {
    const statuses = await Promise.all(running.map(async (id) => [id, (await api.call("GET", `/v1/sessions/${id}`)).body.status] as const));
    running = statuses.filter(([, status]) => status === "running").map(([id]) => id);
    if (running.length > 0) await sleep(1_000);
  }
  return running;
}

export async function check(api: Api, watches: Watch[], redisUrl: string, prefix: string): Promise<Findings> {
  const findings: Findings = { events: 0, missing: [], duplicated: [], gaps: [], running: [], readers: [], wakeupBacklog: 0, wakeupDetail: "" };
  for (const watch of watches) {
    const id = watch.sessionId;
    const events = await history(api, id);
    findings.events += events.length;
    const counts = new Map<string, number>();
    for (const e of events) counts.set(e.id, (counts.get(e.id) ?? 0) + 1);
    for (const [eventId, n] of counts) if (n > 1) findings.duplicated.push(`${id}/${eventId}`);
    // Every message text of a conversation is unique (it carries its number): one seen twice was sent twice.
    const texts = events.filter((e) => e.type === "user.message").map((e) => e.payload?.content?.[0]?.text ?? "");
    for (const [i, t] of texts.entries()) if (texts.indexOf(t) !== i) findings.duplicated.push(`${id}: "${t}"`);
    for (const eventId of api.accepted.get(id) ?? []) if (!counts.has(eventId)) findings.missing.push(`${id}/${eventId}`);
    if (events.some((e, i) => e.sequence !== i + 1)) findings.gaps.push(id);
    const status = (await api.call("GET", `/v1/sessions/${id}`)).body.status;
    if (status === "running") findings.running.push(id);
    // The reader may still be catching up after its last reconnect.
    const deadline = Date.now() + 30_000;
    let seen = watch.events.map((w) => w.event).filter((e) => e.sequence !== null);
    while (seen.length < events.length && Date.now() < deadline) {
      await sleep(200);
      seen = watch.events.map((w) => w.event).filter((e) => e.sequence !== null);
    }
    if (seen.map((e) => e.id).join() !== events.map((e) => e.id).join()) findings.readers.push(`${id}: saw ${seen.length} of ${events.length}`);
  }
  const redis = new Redis(redisUrl);
  const wakeups = new Wakeups(redis, new Keys(prefix));
  const deadline = Date.now() + 30_000;
  do {
    findings.wakeupBacklog = (await wakeups.backlog(Date.now())).backlog;
    if (findings.wakeupBacklog > 0) await sleep(500);
  } while (findings.wakeupBacklog > 0 && Date.now() < deadline);
  if (findings.wakeupBacklog > 0) findings.wakeupDetail = await backlogDetail(redis, new Keys(prefix));
  redis.disconnect();
  return findings;
}

const fieldsOf = (flat: unknown[]) => {
  const out = new Map<string, unknown>();
  for (let i = 0; i + 1 < flat.length; i += 2) out.set(String(flat[i]), flat[i + 1]);
  return out;
};

async function backlogDetail(redis: Redis, keys: Keys): Promise<string> {
  const shards = await Promise.all(
    keys.allShards().map(async (shard) => {
      const key = keys.wakeups(shard);
      const group = ((await redis.xinfo("GROUPS", key)) as unknown[][]).map(fieldsOf).find((g) => g.get("name") === WORKER_GROUP);
      const consumers = ((await redis.xinfo("CONSUMERS", key, WORKER_GROUP)) as unknown[][]).map(fieldsOf);
      const alive = await Promise.all(consumers.map((c) => redis.exists(keys.consumerAlive(String(c.get("name"))))));
      const held = consumers.map(
        (c, i) =>
          `${String(c.get("name")).slice(-12)}: ${String(c.get("pending"))} pending, idle ${String(c.get("idle"))} ms${alive[i] ? ", alive" : ", no heartbeat"}`,
      );
      const info = await redis.xinfo("STREAM", key);
      const last = fieldsOf(info as unknown[]).get("last-generated-id");
      return `shard ${shard}: lag ${String(group?.get("lag"))}, last delivered ${String(group?.get("last-delivered-id"))} of ${String(last)}, pending ${String(group?.get("pending"))}; ${held.join("; ")}`;
    }),
  );
  return shards.join(" | ");
}

/** A wake-up a worker holds unacknowledged: a session it was running, or keeping for a retry. */
export interface HeldWakeup {
  shard: number;
  entryId: string;
  consumer: string;
  sessionId: string | undefined;
  /** The session's turn lock as the worker held it when killed (null: free). */
  lock: string | null;
}

/**
 * The wake-ups the worker process `pid` holds (its consumer is named `<host>-<pid>-<id>`): the work a
 * kill of it leaves for another worker to take over.
 */
export async function heldBy(redis: Redis, keys: Keys, pid: number): Promise<HeldWakeup[]> {
  const prefix = `${hostname()}-${pid}-`;
  const held = await Promise.all(
    keys.allShards().map(async (shard) => {
      const pending = (await redis.xpending(keys.wakeups(shard), WORKER_GROUP, "-", "+", 10_000)) as [string, string, number, number][];
      const mine = pending.filter(([, consumer]) => consumer.startsWith(prefix));
      return Promise.all(
        mine.map(async ([entryId, consumer]) => {
          const sessionId = (await redis.xrange(keys.wakeups(shard), entryId, entryId))[0]?.[1]?.[1];
          return { shard, entryId, consumer, sessionId, lock: sessionId ? await redis.get(keys.sessionLock(sessionId)) : null };
        }),
      );
    }),
  );
  return held.flat();
}

/**
 * Whether another worker took the dead one's work over: it claimed the wake-up (and ran its session at
 * once), or it holds the session's turn lock (a later wake-up brought it there first; the dead one's
 * is claimed once that turn lets go). Either alone misses cases: a claim whose run holds the lock for
 * less than a poll, a run by a later wake-up.
 */
export async function takenOver(redis: Redis, keys: Keys, held: HeldWakeup): Promise<boolean> {
  const pending = (await redis.xpending(keys.wakeups(held.shard), WORKER_GROUP, held.entryId, held.entryId, 1)) as [string, string, number, number][];
  if (pending[0]?.[1] !== held.consumer) return true;
  const holder = held.sessionId ? await redis.get(keys.sessionLock(held.sessionId)) : null;
  return holder !== null && holder !== held.lock;
}
