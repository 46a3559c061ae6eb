/**
 * The scheduler role: claims due automations from the due set and fires their occurrences. Any number
 * of schedulers may run; a claim is atomic and leased (`claim-automations-3.lua`), so two never fire one
 * occurrence, and a scheduler that dies holding claims leaves them to lapse and be claimed again. It
 * reads only what is due (a sorted set range), never every automation; the one full read is the repair,
 * taken by one scheduler per period, that puts every scheduled record's time back in the due set.
 */
import { hostname } from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import pLimit from "p-limit";
import type { Clock } from "../clock.js";
import { newId } from "../ids.js";
import type { Logger } from "../log.js";
import type { AutomationQueue } from "./redis/automation-queue.js";
import type { AutomationOccurrences } from "./automation-occurrences.js";
import type { AutomationStore } from "./store/automations.js";

/** A scheduler with nothing due looks again after at most this long (sooner when something falls due). */
const POLL_MS = 1_000;
/** An occurrence that failed on a store error is tried again after this long. */
const RETRY_MS = 5_000;

export interface SchedulerParts {
  queue: AutomationQueue;
  occurrences: AutomationOccurrences;
  store: AutomationStore;
  clock: Clock;
  logger: Logger;
}

export class Scheduler {
  /** Fences this scheduler's claims: a release by anyone else's token changes nothing. */
  readonly token = `${hostname()}-${process.pid}-${newId("wrk")}`;
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly parts: SchedulerParts,
    /** `leaseMs`: how long a claim holds; far longer than an occurrence takes, short enough to recover a dead scheduler's soon. */
    private readonly opts: { concurrency: number; repairEveryMs: number; leaseMs: number },
  ) {
    this.limit = pLimit(opts.concurrency);
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
  }

  /** Claims and fires everything due now, batch after batch; answers how many claims it settled. */
  async runDue(): Promise<number> {
    const { queue, clock } = this.parts;
    const batch = this.opts.concurrency * 4;
    let settled = 0;
    while (!this.stopping.signal.aborted) {
      const ids = await queue.claim(clock.now(), this.opts.leaseMs, batch, this.token);
      await Promise.all(ids.map((id) => this.limit(() => this.settle(id))));
      settled += ids.length;
      if (ids.length < batch) break;
    }
    return settled;
  }

  /** Fires one claimed automation and releases it with its next run time; a failure is retried soon. */
  private async settle(id: string): Promise<void> {
    const { queue, occurrences, clock, logger } = this.parts;
    let next: number | null;
    try {
      next = await occurrences.fire(id);
    } catch (err) {
      logger.warn("automation occurrence failed; it will be retried", { automationId: id, err });
      next = clock.now() + RETRY_MS;
    }
    try {
      await queue.release(id, this.token, next);
    } catch (err) {
      // The claim lapses and another scheduler (or this one) carries on from the last step done.
      logger.warn("automation claim not released; it will lapse", { automationId: id, err });
    }
  }

  /** Puts every scheduled record's next run time in the due set (a no-op for those already due as early), if it is this scheduler's turn. */
  async repair(): Promise<number> {
    const { queue, store } = this.parts;
    if (!(await queue.takeRepairTurn(this.opts.repairEveryMs, this.token))) return 0;
    const entries: { id: string; at: number }[] = [];
    for await (const entry of store.scheduled()) entries.push(entry);
    await queue.scheduleMany(entries);
    return entries.length;
  }

  private async run(): Promise<void> {
    const { queue, clock, logger } = this.parts;
    let repairAt = 0;
    while (!this.stopping.signal.aborted) {
      let wait = POLL_MS;
      try {
        if (clock.now() >= repairAt) {
          const repaired = await this.repair();
          if (repaired > 0) logger.info("automations due set repaired", { scheduled: repaired });
          repairAt = clock.now() + this.opts.repairEveryMs;
        }
        await this.runDue();
        const earliest = await queue.earliest();
        if (earliest !== null) wait = Math.min(POLL_MS, Math.max(0, earliest - clock.now()));
      } catch (err) {
        logger.warn("scheduler pass failed", { err });
      }
      // Aborted by stop: the loop ends at once.
      await delay(wait, undefined, { signal: this.stopping.signal }).catch(() => undefined);
    }
  }
}
