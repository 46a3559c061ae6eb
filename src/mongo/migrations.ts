/**
 * Rewrites of records stored in an older shape, run at start by every process. Each runs once per
 * database (a marker document records it) and is safe beside live writers and other processes doing
 * the same, because it writes only with the operators the live writers use.
 */
import type { Db } from "mongodb";
import type { SessionStatus } from "../sessions/domain/session-state.js";
import { projected } from "../sessions/store/session-shape.js";

const STATUS_PROJECTIONS = "sessions.projected";

/**
 * Gives records written before `projected` existed their status there, so list filters see them. A
 * `$max`: a live writer's later version is kept.
 */
async function migrateStatusProjections(db: Db): Promise<void> {
  const sessions = db.collection<{ _id: string; status?: SessionStatus; statusVersion?: number }>("sessions");
  const legacy = sessions.find({ projected: { $exists: false } }, { projection: { status: 1, statusVersion: 1 } });
  for await (const doc of legacy) {
    await sessions.updateOne({ _id: doc._id }, { $max: { projected: projected(doc.statusVersion ?? 0, doc.status ?? "idle") } });
  }
}

export async function migrate(db: Db): Promise<void> {
  const markers = db.collection<{ _id: string; at: Date }>("migrations");
  if (await markers.findOne({ _id: STATUS_PROJECTIONS })) return;
  await migrateStatusProjections(db);
  await markers.updateOne({ _id: STATUS_PROJECTIONS }, { $setOnInsert: { at: new Date() } }, { upsert: true });
}
