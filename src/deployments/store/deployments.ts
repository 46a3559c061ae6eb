/**
 * Deployment records in MongoDB. Reads by id are by `_id` alone, then the organization is checked. A
 * record being deleted (`deleting` set) is gone for callers while its teardown finishes. Writes are
 * conditional on the revision they were computed from, on the status they move from, or on the lease
 * they are made under, so two pods never overwrite each other's change; and every write of a record
 * takes its turn (`RecordTurns`), as FerretDB checks no filter and applies no update atomically. On
 * disk the settings' secrets are pairs (`deployment-shape.ts`); every read here gives the map.
 */
import type { Collection, Db, Filter } from "mongodb";
import type { DeploymentSandbox, DeploymentSettings, DeploymentStatus } from "../domain/deployments.js";
import { loadedSettings, storedSettings, type StoredSettings } from "./shape.js";
import type { RecordTurns } from "../../mongo/record-turns.js";

export interface StatusTransition {
  status: DeploymentStatus;
  at: Date;
  reason: string | null;
}

export interface DeploymentDoc {
  _id: string;
  orgId: string;
  customerId: string;
  runtime: string;
  sandbox: DeploymentSandbox;
  settings: DeploymentSettings;
  status: DeploymentStatus;
  /** Why the deployment is in `error`; null otherwise. */
  statusReason: string | null;
  /** Every status the deployment took, oldest first (bounded: provisioning runs at create and after a failed one's update). */
  transitions: StatusTransition[];
  /** Chosen at create, so a provisioning run that is retried makes the same agent and thread. */
  agentId: string;
  threadId: string;
  revision: number;
  /** Until when a process holds the provisioning or teardown work; another takes it over after (the holder renews it while it works). */
  leaseUntil: Date | null;
  /** The run holding the lease (a random token per run): only it settles, releases or removes the record. */
  leaseOwner: string | null;
  deleting: { retainFilesystem: boolean; at: Date } | null;
  /** The idle-time runs made so far (features.dreaming): when the last began, and the latest dream threads. */
  dreams?: { lastAt: Date; threadIds: string[] };
  /** The latest status change whose webhook notice is not queued yet (the notice's outbox), written with the change. */
  notice?: StatusTransition;
  createdAt: Date;
  updatedAt: Date;
}

export interface DeploymentFilter {
  customerId?: string;
  status?: DeploymentStatus;
}

/** Dream threads remembered per record (told apart from the customer's threads when judging idleness). */
const DREAMS_KEPT = 20;

/** Transitions kept per record: the latest ones. */
const TRANSITIONS_KEPT = 50;

type StoredDeployment = Omit<DeploymentDoc, "settings"> & { settings: StoredSettings };

const stored = (doc: DeploymentDoc): StoredDeployment => ({ ...doc, settings: storedSettings(doc.settings) });
const loaded = (doc: StoredDeployment | null): DeploymentDoc | null => doc && { ...doc, settings: loadedSettings(doc.settings) };

/**
 * The transitions with `t` last, the latest `TRANSITIONS_KEPT`: computed here and written whole, since
 * FerretDB v1 ignores `$push`'s `$slice` (the list grew without bound there).
 */
const withTransition = (transitions: StatusTransition[] | undefined, t: StatusTransition) => [...(transitions ?? []), t].slice(-TRANSITIONS_KEPT);

export class DeploymentStore {
  private readonly deployments: Collection<StoredDeployment>;

  constructor(
    db: Db,
    private readonly turns: RecordTurns,
  ) {
    this.deployments = db.collection<StoredDeployment>("deployments");
  }

  async insert(doc: DeploymentDoc): Promise<void> {
    await this.deployments.insertOne(stored(doc));
  }

  async byId(id: string): Promise<DeploymentDoc | null> {
    return loaded(await this.deployments.findOne({ _id: id }));
  }

  /** The organization's deployment, unless it is being deleted. */
  async get(orgId: string, id: string): Promise<DeploymentDoc | null> {
    const doc = await this.byId(id);
    return doc && doc.orgId === orgId && !doc.deleting ? doc : null;
  }

  /** Runs `work` on the record as it is now, in the record's turn: no write of it runs meanwhile (`work` writes none either). */
  inTurn<T>(id: string, work: (doc: DeploymentDoc | null) => Promise<T>): Promise<T> {
    return this.turns(id, async () => work(await this.byId(id)));
  }

  /** Newest first; `before`: the id the previous page ended at (ids sort by creation time). */
  async list(orgId: string, filter: DeploymentFilter, opts: { limit: number; before?: string }): Promise<{ items: DeploymentDoc[]; more: boolean }> {
    const query: Filter<StoredDeployment> = { orgId, deleting: null };
    if (filter.customerId !== undefined) query.customerId = filter.customerId;
    if (filter.status !== undefined) query.status = filter.status;
    if (opts.before !== undefined) query._id = { $lt: opts.before };
    const docs = await this.deployments
      .find(query)
      .sort({ _id: -1 })
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit).map((d) => loaded(d)!), more: docs.length > opts.limit };
  }

  /**
   * Writes new settings over the revision they were computed from; null when the record moved on (or
   * went). With `reprovision`, the record goes back to provisioning, its transitions read in this turn.
   */
  async changeSettings(doc: DeploymentDoc, settings: DeploymentSettings, reprovision: boolean): Promise<DeploymentDoc | null> {
    const now = new Date();
    const set: Partial<StoredDeployment> = { settings: storedSettings(settings), revision: doc.revision + 1, updatedAt: now };
    const filter: Filter<StoredDeployment> = { _id: doc._id, revision: doc.revision, deleting: null };
    return this.turns(doc._id, async () => {
      if (reprovision) {
        const current = await this.transitionsOf(doc._id);
        if (!current) return null;
        const transition = { status: "provisioning" as const, at: now, reason: null };
        Object.assign(set, { status: "provisioning", statusReason: null, notice: transition, transitions: withTransition(current.transitions, transition) });
        filter.updatedAt = current.updatedAt;
      }
      return loaded(await this.deployments.findOneAndUpdate(filter, { $set: set }, { returnDocument: "after" }));
    });
  }

  /**
   * The record's transitions as they are in the caller's turn, and its `updatedAt`: every write that
   * changes them sets it, so a filter on it keeps them current on MongoDB should a turn lapse.
   */
  private transitionsOf(id: string): Promise<Pick<DeploymentDoc, "transitions" | "updatedAt"> | null> {
    return this.deployments.findOne({ _id: id }, { projection: { _id: 0, transitions: 1, updatedAt: 1 } });
  }

  /** Records with a status change whose webhook notice is not queued yet. */
  async toNotify(limit: number): Promise<DeploymentDoc[]> {
    return (
      await this.deployments
        .find({ "notice.at": { $gt: new Date(0) } })
        .limit(limit)
        .toArray()
    ).map((d) => loaded(d)!);
  }

  /** The notice of the change at `at` is queued; a later change's, written meanwhile, stays. */
  async notified(id: string, at: Date): Promise<void> {
    await this.turns(id, () => this.deployments.updateOne({ _id: id, "notice.at": at }, { $unset: { notice: "" } }));
  }

  /** Takes the provisioning or teardown work of a record whose lease is free or lapsed, for the run `owner`; null when another holds it. */
  async lease(id: string, owner: string, until: Date, now: Date): Promise<DeploymentDoc | null> {
    const doc = await this.turns(id, () =>
      this.deployments.findOneAndUpdate(
        { _id: id, $or: [{ leaseUntil: null }, { leaseUntil: { $lt: now } }] },
        { $set: { leaseUntil: until, leaseOwner: owner } },
        { returnDocument: "after" },
      ),
    );
    return loaded(doc);
  }

  /** Extends the run's lease; false when it is no longer the run's (it lapsed and another took it, or the record went). */
  async renew(id: string, owner: string, until: Date): Promise<boolean> {
    const res = await this.turns(id, () => this.deployments.updateOne({ _id: id, leaseOwner: owner }, { $set: { leaseUntil: until } }));
    return res.matchedCount === 1;
  }

  /** Moves a provisioning record, provisioned at `revision` by the run holding the lease, to ready or error; false when it changed meanwhile. */
  async settle(id: string, owner: string, revision: number, status: "ready" | "error", reason: string | null): Promise<boolean> {
    const transition = { status, at: new Date(), reason };
    const res = await this.turns(id, async () => {
      const current = await this.transitionsOf(id);
      if (!current) return null;
      return this.deployments.updateOne(
        { _id: id, leaseOwner: owner, status: "provisioning", revision, deleting: null, updatedAt: current.updatedAt },
        {
          $set: {
            status,
            statusReason: reason,
            leaseUntil: null,
            leaseOwner: null,
            updatedAt: transition.at,
            notice: transition,
            transitions: withTransition(current.transitions, transition),
          },
        },
      );
    });
    return res?.modifiedCount === 1;
  }

  /** Gives back the run's lease without settling (the work failed for a reason worth retrying). */
  async release(id: string, owner: string): Promise<void> {
    await this.turns(id, () => this.deployments.updateOne({ _id: id, leaseOwner: owner }, { $set: { leaseUntil: null, leaseOwner: null } }));
  }

  /**
   * Marks the record deleted for callers; its teardown follows. The lease is left as it is: a provisioning
   * run under way finishes (its settling then fails) before the teardown can take the work, so it cannot
   * make a thread after the teardown deleted them. Null when it is not there (or already deleting).
   */
  async markDeleting(orgId: string, id: string, retainFilesystem: boolean): Promise<DeploymentDoc | null> {
    const doc = await this.turns(id, () =>
      this.deployments.findOneAndUpdate(
        { _id: id, orgId, deleting: null },
        { $set: { deleting: { retainFilesystem, at: new Date() } } },
        { returnDocument: "after" },
      ),
    );
    return loaded(doc);
  }

  /** Removes the record at the end of its teardown, by the run holding its lease; false when another holds it. */
  async remove(id: string, owner: string): Promise<boolean> {
    const res = await this.turns(id, () => this.deployments.deleteOne({ _id: id, leaseOwner: owner }));
    return res.deletedCount === 1;
  }

  /** Ready deployments with the feature on: every one of them, a page of `pageSize` at a time in `_id` order. */
  withFeature(feature: "dreaming" | "filesystemWebhooks", pageSize: number): AsyncGenerator<DeploymentDoc> {
    return this.pages({ status: "ready", deleting: null, [`settings.features.${feature}`]: true }, pageSize);
  }

  /** Every record the filter matches, read a page at a time: each page starts after the last `_id` of the one before. */
  private async *pages(filter: Filter<StoredDeployment>, pageSize: number): AsyncGenerator<DeploymentDoc> {
    let after: string | undefined;
    for (;;) {
      const page = await this.deployments
        .find(after === undefined ? filter : { $and: [filter, { _id: { $gt: after } }] })
        .sort({ _id: 1 })
        .limit(pageSize)
        .toArray();
      yield* page.map((d) => loaded(d)!);
      if (page.length < pageSize) return;
      after = page[page.length - 1]!._id;
    }
  }

  /**
   * Records a dream beginning, over the last one the caller read (so two sweepers never both begin one);
   * false when another began first.
   */
  async beginDream(doc: DeploymentDoc, threadId: string, at: Date): Promise<boolean> {
    const threadIds = [...(doc.dreams?.threadIds ?? []), threadId].slice(-DREAMS_KEPT);
    const res = await this.turns(doc._id, () =>
      this.deployments.updateOne({ _id: doc._id, "dreams.lastAt": doc.dreams?.lastAt ?? null }, { $set: { dreams: { lastAt: at, threadIds } } }),
    );
    return res.modifiedCount === 1;
  }

  /** Records whose provisioning or teardown is due and unleased (a process died holding it, or never began): every one, a page at a time. */
  pendingWork(now: Date, pageSize: number): AsyncGenerator<DeploymentDoc> {
    return this.pages(
      { $and: [{ $or: [{ status: "provisioning" }, { deleting: { $ne: null } }] }, { $or: [{ leaseUntil: null }, { leaseUntil: { $lt: now } }] }] },
      pageSize,
    );
  }
}
