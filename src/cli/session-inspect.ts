/**
 * `sessions inspect`: everything the stores hold about one session, read directly: its MongoDB record,
 * its runtime state and log sizes on Redis, its turn lock, and the work waiting for a worker (the
 * pending mark, unacknowledged wake-ups, record writers not done, custom tool kickoff deadlines).
 */
import type { RedisClient } from "../redis/client.js";
import { AppError } from "../errors.js";
import { EventLog } from "../sessions/redis/event-log.js";
import { identityOf } from "../sessions/redis/log-entries.js";
import { Intents } from "../sessions/redis/intents.js";
import type { Keys } from "../redis/keys.js";
import { Kickoffs } from "../worker/redis/kickoffs.js";
import { Locks } from "../redis/locks.js";
import { Wakeups } from "../sessions/redis/wakeups.js";
import { OrganizationStore } from "../accounts/store/organizations.js";
import { SessionStore } from "../sessions/store/sessions.js";
import { operatorConfig, setting, shownUrl, withMongo, withRedis } from "./backends.js";
import { renderInspection, type Inspection } from "./inspect-view.js";

/** Wake-ups looked at, of each kind (delivered and unacknowledged; not yet read by the group). */
const WAKEUP_SCAN = 1_000;

const iso = (ms: number) => new Date(ms).toISOString();

async function redisSide(redis: RedisClient, keys: Keys, sessionId: string): Promise<Omit<Inspection, "sessionId" | "record">> {
  const log = new EventLog(redis, keys);
  const intents = new Intents(redis, keys);
  const [snapshot, sizes, turnLock, marked, wakeups, writes, kickoffs] = await Promise.all([
    log.snapshot(sessionId),
    log.sizes(sessionId),
    new Locks(redis, keys).turnLock(sessionId),
    intents.pendingSince(sessionId),
    new Wakeups(redis, keys).pendingOf(sessionId, WAKEUP_SCAN),
    intents.projectionsOf(sessionId),
    new Kickoffs(redis, keys).of(sessionId),
  ]);
  // A deadline stays in the set after its call is answered, until the sweep finds it due: only the calls
  // the state still shows waiting for a first result have a kickoff pending.
  const waiting = new Set((snapshot?.state.turn?.calls ?? []).filter((c) => c.state === "custom").map((c) => c.id));
  return {
    runtime: snapshot && { state: snapshot.state, identity: identityOf(snapshot.fields), ...sizes },
    turnLock,
    pending: {
      markedSince: marked === null ? null : iso(marked),
      wakeups: wakeups.wakeups,
      wakeupsComplete: wakeups.complete,
      recordWrites: writes.map((w) => ({ member: w.member, since: iso(w.since) })),
      kickoffs: kickoffs.filter((k) => waiting.has(k.callId)).map((k) => ({ callId: k.callId, deadline: iso(k.deadlineMs) })),
    },
  };
}

export async function inspectSession(sessionId: string, json: boolean): Promise<void> {
  const config = operatorConfig();
  const record = await withMongo(config, async (db) => {
    const doc = await new SessionStore(db).byId(sessionId);
    return doc && { ...doc, organization: await new OrganizationStore(db).nameOf(doc.orgId) };
  });
  await withRedis(config, async ({ redis, keys, where }) => {
    const side = await redisSide(redis, keys, sessionId);
    if (!record && !side.runtime) {
      throw new AppError(
        "not_found",
        `no session ${sessionId}: no record in MongoDB (${setting("MONGO_URL", shownUrl(config.mongoUrl))}) and no state in Redis (${where})`,
      );
    }
    const inspection: Inspection = { sessionId, record, ...side };
    process.stdout.write(json ? `${JSON.stringify(inspection, null, 2)}\n` : renderInspection(inspection, keys, where));
  });
}
