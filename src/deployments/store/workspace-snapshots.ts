/**
 * Workspace snapshots of deleted deployments (`retain_filesystem`): where each is and until when it is
 * kept. The sweep removes a snapshot's files first and its record after, so a crash between leaves a
 * record the next sweep finishes.
 */
import type { Collection, Db } from "mongodb";

export interface SnapshotDoc {
  /** The deleted deployment's id. */
  _id: string;
  orgId: string;
  customerId: string;
  path: string;
  createdAt: Date;
  expiresAt: Date;
}

export class SnapshotStore {
  private readonly snapshots: Collection<SnapshotDoc>;

  constructor(db: Db) {
    this.snapshots = db.collection<SnapshotDoc>("workspace_snapshots");
  }

  /** Recorded before the files move, so no snapshot exists without its record (and its expiry). */
  async record(doc: SnapshotDoc): Promise<void> {
    await this.snapshots.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  expired(now: Date, limit: number): Promise<SnapshotDoc[]> {
    return this.snapshots
      .find({ expiresAt: { $lt: now } })
      .limit(limit)
      .toArray();
  }

  byId(id: string): Promise<SnapshotDoc | null> {
    return this.snapshots.findOne({ _id: id });
  }

  async remove(id: string): Promise<void> {
    await this.snapshots.deleteOne({ _id: id });
  }
}
