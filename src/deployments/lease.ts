/**
 * A provisioning or teardown run's hold on its deployment record: taken under a random token of the
 * run's own, renewed every third of the lease while the run works (so a slow step, such as an MCP
 * server that takes long to answer, never lets another process's sweep take the work over), and
 * checked before each step that writes. A run whose renewal finds the lease gone, or that could not
 * renew it before it lapsed, stops: another process may be doing the work now.
 */
import { randomUUID } from "node:crypto";
import { AppError } from "../errors.js";
import type { DeploymentDoc, DeploymentStore } from "./store/deployments.js";

export class HeldLease {
  readonly owner = randomUUID();
  private until = 0;
  private lost = false;
  private renewing = false;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly store: DeploymentStore,
    private readonly id: string,
    private readonly leaseMs: number,
  ) {}

  /** The record, its lease taken for a new run, and the run's hold on it; null when another holds the lease. */
  static async take(store: DeploymentStore, id: string, leaseMs: number): Promise<{ doc: DeploymentDoc; lease: HeldLease } | null> {
    const lease = new HeldLease(store, id, leaseMs);
    const now = Date.now();
    const doc = await store.lease(id, lease.owner, new Date(now + leaseMs), new Date(now));
    if (!doc) return null;
    lease.until = now + leaseMs;
    lease.timer = setInterval(() => void lease.renew(), Math.max(50, Math.floor(leaseMs / 3)));
    lease.timer.unref();
    return { doc, lease };
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.lost) return;
    this.renewing = true;
    const until = Date.now() + this.leaseMs;
    try {
      if (await this.store.renew(this.id, this.owner, new Date(until))) this.until = Math.max(this.until, until);
      else this.lost = true;
    } catch {
      // The next renewal tries again; if none succeeds, the lease lapses and `check` says so.
    } finally {
      this.renewing = false;
    }
  }

  /** Throws `lock_lost` once the lease is no longer surely this run's: the run stops before its next write. */
  check(): void {
    if (this.lost || Date.now() >= this.until) this.lose();
  }

  /** The run found that its record no longer names it as the holder: it stops here. */
  lose(): never {
    this.lost = true;
    throw new AppError("lock_lost", "the deployment's work was taken over by another process");
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
