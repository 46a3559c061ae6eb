/**
 * The durable queue of webhook deliveries, of deployments' filesystem webhooks and of organizations'
 * endpoints alike: a delivery is written before it is sent, taken by one sender at a time (its next
 * attempt time moved past a claim window), and settled as delivered, or retried later, or failed after
 * its last attempt. A sender that dies holding one leaves it to be taken again when the claim window
 * passes: delivery is at least once.
 */
import { MongoBulkWriteError, type Collection, type Db } from "mongodb";
import type { Page } from "../../agents/store/agents.js";
import { isDuplicateKey } from "../../mongo/mongo.js";

export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface DeliveryDoc {
  /** The message id (`webhook-id`): the same on every attempt, so a receiver can drop repeats. */
  _id: string;
  orgId: string;
  /** Whose endpoint it goes to: a deployment's filesystem webhook, or an organization's endpoint. */
  deploymentId?: string;
  endpointId?: string;
  type: string;
  /** The JSON body, as sent (and signed). */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  /** The HTTP status of the last attempt that got an answer. */
  lastStatus: number | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** Runs one claim at a time across processes: FerretDB checks a filter and sets a field in two steps. */
export type ClaimTurns = <T>(claim: () => Promise<T>) => Promise<T>;

const allDuplicates = (err: unknown) =>
  isDuplicateKey(err) || (err instanceof MongoBulkWriteError && Array.isArray(err.writeErrors) && err.writeErrors.every((e) => e.code === 11000));

export class WebhookDeliveryStore {
  private readonly deliveries: Collection<DeliveryDoc>;

  constructor(
    db: Db,
    private readonly turns: ClaimTurns,
  ) {
    this.deliveries = db.collection<DeliveryDoc>("webhook_deliveries");
  }

  /** Queues deliveries; one whose id is queued already is left as it is (its message was queued before). */
  async enqueue(docs: DeliveryDoc[]): Promise<void> {
    if (docs.length === 0) return;
    try {
      await this.deliveries.insertMany(docs, { ordered: false });
    } catch (err) {
      if (!allDuplicates(err)) throw err;
    }
  }

  /** Claims one due delivery until `claimUntil`; null when none is due. */
  async claimDue(now: Date, claimUntil: Date): Promise<DeliveryDoc | null> {
    return this.turns(() =>
      this.deliveries.findOneAndUpdate(
        { status: "pending", nextAttemptAt: { $lte: now } },
        { $set: { nextAttemptAt: claimUntil } },
        { sort: { nextAttemptAt: 1 }, returnDocument: "after" },
      ),
    );
  }

  async delivered(id: string, status: number, at: Date): Promise<void> {
    await this.deliveries.updateOne(
      { _id: id },
      { $set: { status: "delivered", lastStatus: status, lastError: null, deliveredAt: at }, $inc: { attempts: 1 } },
    );
  }

  /** An attempt failed: retried at `retryAt`, or failed for good when null. */
  async attemptFailed(id: string, error: string, status: number | null, retryAt: Date | null): Promise<void> {
    const set = retryAt
      ? { nextAttemptAt: retryAt, lastError: error, lastStatus: status }
      : { status: "failed" as const, lastError: error, lastStatus: status };
    await this.deliveries.updateOne({ _id: id }, { $set: set, $inc: { attempts: 1 } });
  }

  /** The deployment's deliveries, newest first, before the id a previous page ended at. */
  async page(deploymentId: string, opts: { limit: number; before?: string }): Promise<{ items: DeliveryDoc[]; more: boolean }> {
    const query = opts.before ? { deploymentId, _id: { $lt: opts.before } } : { deploymentId };
    const docs = await this.deliveries
      .find(query)
      .sort({ _id: -1 })
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit), more: docs.length > opts.limit };
  }

  /** An organization endpoint's deliveries, newest first. */
  async endpointPage(endpointId: string, opts: { limit: number; offset: number }): Promise<Page<DeliveryDoc>> {
    const docs = await this.deliveries
      .find({ endpointId })
      .sort({ createdAt: -1, _id: -1 })
      .skip(opts.offset)
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit), hasMore: docs.length > opts.limit };
  }

  async endpointDelivery(endpointId: string, id: string): Promise<DeliveryDoc | null> {
    return this.deliveries.findOne({ _id: id, endpointId });
  }

  /** Queues a delivery that is not pending for one more attempt now; null when there is none such. */
  async retry(endpointId: string, id: string, now: Date): Promise<DeliveryDoc | null> {
    return this.turns(() =>
      this.deliveries.findOneAndUpdate(
        { _id: id, endpointId, status: { $ne: "pending" } },
        { $set: { status: "pending", nextAttemptAt: now, deliveredAt: null } },
        { returnDocument: "after" },
      ),
    );
  }

  async removeFor(deploymentId: string): Promise<void> {
    await this.deliveries.deleteMany({ deploymentId });
  }

  async removeForEndpoint(endpointId: string): Promise<void> {
    await this.deliveries.deleteMany({ endpointId });
  }
}
