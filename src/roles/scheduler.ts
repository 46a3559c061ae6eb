/** The scheduler role: automations fired on time, and the deployments' recovery and webhook sweeps. */
import { Scheduler } from "../automations/scheduler.js";
import { startDeploymentSweeps, type DeploymentParts } from "./deployments.js";
import type { Core } from "./core.js";

export interface SchedulerRole {
  stop(): Promise<void>;
}

/** The scheduler role over `core`: firing automations, and the deployments' sweeps. */
export function startSchedulerRole(core: Core, deployments: DeploymentParts): SchedulerRole {
  const { config, log, automationQueue: queue, occurrences, automationStore: store, clock } = core;
  const scheduler = new Scheduler(
    { queue, occurrences, store, clock, logger: log },
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
