/** The scheduler role: automations fired on time, and the deployments' recovery and webhook sweeps. */
import { Scheduler } from "../automations/scheduler.js";
import { startDeploymentSweeps, type DeploymentSweeps } from "./deployments.js";
import type { InnerServices, ProcessParts, RedisParts, Stores } from "./parts.js";

/** The core parts the scheduler stands on. */
export interface SchedulerParts {
  process: Pick<ProcessParts, "config" | "log" | "clock">;
  stores: Pick<Stores, "automations">;
  redis: Pick<RedisParts, "automationQueue">;
  inner: Pick<InnerServices, "occurrences">;
}

export interface SchedulerRole {
  stop(): Promise<void>;
}

/** The scheduler role over the core: firing automations, and the deployments' sweeps. */
export function startSchedulerRole(core: SchedulerParts, deployments: DeploymentSweeps): SchedulerRole {
  const { config, log, clock } = core.process;
  const scheduler = new Scheduler(
    { queue: core.redis.automationQueue, occurrences: core.inner.occurrences, store: core.stores.automations, clock, logger: log },
    { concurrency: config.schedulerConcurrency, repairEveryMs: config.automationRepairMs, leaseMs: config.automationLeaseMs },
  );
  scheduler.start();
  const stopSweeps = startDeploymentSweeps(deployments, { sweepMs: config.deploymentSweepMs, sendMs: config.webhookSweepMs }, (err) =>
    log.warn("deployment sweep failed", { err }),
  );
  return {
    async stop() {
      await scheduler.stop();
      stopSweeps();
    },
  };
}
