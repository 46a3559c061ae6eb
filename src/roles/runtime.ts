/** A process's roles over one core (`ROLE`): which run, and their orderly teardown. */
import { systemClock, type Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import type { MongoOptions } from "../mongo/mongo.js";
import { buildCore } from "./core.js";
import { buildDeployments, detectSandboxEngine, type DeploymentParts } from "./deployments.js";
import type { Core } from "./parts.js";
import { startSchedulerRole, type SchedulerRole } from "./scheduler.js";
import { startWorkerRole, type WorkerRole } from "./worker.js";

export interface Runtime {
  core: Core;
  /** The deployments interface's services and background work. */
  deployments: DeploymentParts;
  /** Starts the worker side (turns) or, for the scheduler role, only the recovery sweep. */
  startWorker(consume: boolean): Promise<void>;
  /** Starts firing automations, and the deployments' recovery sweeps (the scheduler and all roles). */
  startScheduler(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `mongo`: options of the MongoDB client beyond the config (a benchmark watches its commands); `clock`:
 * the time automations are scheduled by (a test's, moved by hand).
 */
export async function createRuntime(config: Config, log: Logger, opts: { mongo?: MongoOptions; clock?: Clock } = {}): Promise<Runtime> {
  const core = await buildCore(config, log, opts.mongo ?? {}, opts.clock ?? systemClock);
  const deployments = buildDeployments(core, await detectSandboxEngine(config, log));
  const shutdown = new AbortController();
  let worker: WorkerRole | undefined;
  let scheduler: SchedulerRole | undefined;
  return {
    core,
    deployments,
    async startWorker(consume: boolean) {
      worker = await startWorkerRole(core, deployments.threads, consume, shutdown.signal);
    },
    async startScheduler() {
      scheduler = startSchedulerRole(core, deployments);
    },
    async close() {
      shutdown.abort();
      await scheduler?.stop();
      await Promise.allSettled([worker?.stop(), core.process.stopReader(), core.services.openStreams.close()]);
      await core.process.mcpPool.close();
      await core.process.outbound.close();
      // Records of the last commits are written before the connections go (else the sweep repairs them).
      await core.inner.projector.drain();
      await Promise.allSettled([core.connections.redis.quit(), core.connections.mongo.client.close()]);
    },
  };
}
