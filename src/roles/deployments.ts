/**
 * The deployments interface's part of the composition root: its services, built over the core's
 * components, and its background sweeps (provisioning and teardown recovery, expired snapshots).
 */
import type { Db } from "mongodb";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import type { Locks } from "../redis/locks.js";
import type { Services } from "../http/context.js";
import type { DeploymentServices } from "../deployments/http/context.js";
import type { AutomationGate } from "../automations/automation-runs.js";
import type { SecretUsers } from "../vaults/secrets.js";
import type { ThreadPlaces } from "../agent-tools/sandbox/thread-places.js";
import { SkillEpochs } from "../agent-tools/redis/skill-epochs.js";
import { DeploymentLeftovers } from "../deployments/agent-leftovers.js";
import { DeploymentDreams } from "../deployments/dreams.js";
import { DeploymentProvisioning } from "../deployments/provisioning.js";
import { SkillSources } from "../deployments/skills.js";
import { DeploymentThreads } from "../deployments/threads.js";
import { LocalWorkspaces } from "../deployments/workspaces.js";
import { DeploymentService } from "../deployments/deployments.js";
import { DeploymentNotices } from "../deployments/deployment-notices.js";
import { DeploymentPlaces } from "../deployments/thread-places.js";
import { AutomationRunStore } from "../automations/store/automation-runs.js";
import { DeploymentStore } from "../deployments/store/deployments.js";
import { MemoryStore } from "../agent-tools/store/memories.js";
import { SubjectSkillStore } from "../agent-tools/store/subject-skills.js";
import { ToolGrantStore } from "../worker/store/tool-grants.js";
import { SnapshotStore } from "../deployments/store/workspace-snapshots.js";
import { deploymentWorkspaceOf, scanWorkspace, workspaceFiles } from "../deployments/workspace-files.js";
import { deploymentWorkspacePath } from "../deployments/workspace.js";
import { DockerEngine } from "../agent-tools/sandbox/docker.js";
import { sandboxUser } from "../agent-tools/sandbox/sandbox.js";
import { FilesystemWebhooks, MAX_SCANNED_FILES } from "../deployments/filesystem-webhooks.js";
import { WebhookSender } from "../webhooks/webhook-sender.js";
import { automationRunOutbox, RecordNotices } from "../webhooks/record-notices.js";
import { DeploymentWebhookStore } from "../deployments/store/webhooks.js";
import { SecretBox } from "../vaults/store/secret-box.js";
import { DeploymentFeatureGate } from "../deployments/feature-gate.js";
import { DeploymentSecretRefs } from "../deployments/store/secret-refs.js";
import { deliveryTarget } from "./webhooks.js";
import type { Core, InnerServices, ProcessParts, RedisParts, Stores } from "./parts.js";

/** The core parts the deployments interface is built over. */
export interface DeploymentCoreParts {
  process: Pick<ProcessParts, "config" | "log" | "validator" | "outbound">;
  connections: Pick<Core["connections"], "mongo" | "redis" | "keys">;
  stores: Pick<Stores, "agents" | "sessions" | "automations">;
  redis: Pick<RedisParts, "locks" | "automationQueue">;
  /** The credits and secrets deployments are charged and given; organizations' webhooks, whose delivery queue and sender the filesystem webhooks share. */
  inner: Pick<InnerServices, "mcp" | "credits" | "secrets" | "webhooks">;
  services: Pick<Services, "idempotency" | "access" | "automations" | "sessions" | "events" | "streams" | "openStreams">;
}

/** The deployments interface's services, its stores and sweeps' parts, and where its threads' tools run (for the worker). */
export interface DeploymentParts {
  services: DeploymentServices;
  store: DeploymentStore;
  provisioning: DeploymentProvisioning;
  workspaces: LocalWorkspaces;
  dreams: DeploymentDreams;
  webhooks: FilesystemWebhooks;
  sender: WebhookSender;
  notices: RecordNotices;
  threads: ThreadPlaces;
}

/** `docker`: the engine of the `docker` sandbox backend, when one answered at start (`detectSandboxEngine`). */
export function buildDeployments(c: DeploymentCoreParts, docker: DockerEngine | null): DeploymentParts {
  const { config, log } = c.process;
  const { mongo, redis, keys } = c.connections;
  const { locks } = c.redis;
  const { credits, secrets } = c.inner;
  const store = deploymentStore(mongo.db, locks);
  const workspaces = new LocalWorkspaces(config.workspaceRoot, docker, new SnapshotStore(mongo.db), config.snapshotRetentionMs, log);
  const hooks = new DeploymentWebhookStore(mongo.db, config.vaultKeys && new SecretBox(config.vaultKeys.current, config.vaultKeys.older), (id, write) =>
    locks.withRecord("workspace_manifests", id, write),
  );
  const { deliveries, endpoints } = c.inner.webhooks;
  const runs = new AutomationRunStore(mongo.db);
  const leftovers = new DeploymentLeftovers({
    memories: new MemoryStore(mongo.db),
    skills: new SubjectSkillStore(mongo.db, new SkillEpochs(redis, keys)),
    grants: new ToolGrantStore(mongo.db),
    automations: c.stores.automations,
    runs,
    queue: c.redis.automationQueue,
    hooks,
    deliveries,
  });
  const deploymentNotices = new DeploymentNotices(store, c.inner.webhooks.notices);
  const { sessions, events } = c.services;
  const provisioning = new DeploymentProvisioning({
    store,
    agents: c.stores.agents,
    sessions,
    events,
    mcp: c.inner.mcp,
    workspaces,
    leftovers,
    notices: deploymentNotices,
    logger: log,
    leaseMs: config.deploymentLeaseMs,
  });
  const deployments = new DeploymentService({
    store,
    skills: new SkillSources(c.process.outbound, workspaceFiles(config.workspaceRoot, sandboxUser)),
    secrets,
    credits,
    provisioning,
    defaultModel: config.deploymentsDefaultModel,
  });
  const webhooks = new FilesystemWebhooks({
    store,
    hooks,
    deliveries,
    scan: (id) => scanWorkspace(deploymentWorkspaceOf(config.workspaceRoot, id)!, MAX_SCANNED_FILES),
    logger: log,
  });
  const sender = new WebhookSender(deliveries, deliveryTarget(hooks, endpoints), c.process.outbound, log, {
    maxAttempts: config.webhookMaxAttempts,
    firstRetryMs: config.webhookRetryFirstMs,
    maxRetryMs: config.webhookRetryMaxMs,
    timeoutMs: config.webhookTimeoutMs,
  });
  const services: DeploymentServices = {
    config,
    log,
    validator: c.process.validator,
    idempotency: c.services.idempotency,
    access: c.services.access,
    deployments,
    automations: c.services.automations,
    threads: new DeploymentThreads(deployments, sessions, c.stores.sessions, events, credits, config.workspaceRoot),
    streams: c.services.streams,
    openStreams: c.services.openStreams,
    webhooks,
    deliveries,
    secrets,
    credits,
    workspacePathOf: (d) => deploymentWorkspacePath(config.workspaceRoot, d, docker),
  };
  const dreams = new DeploymentDreams({ store, sessionStore: c.stores.sessions, sessions, events, logger: log, idleMs: config.dreamIdleMs });
  const notices = new RecordNotices(c.inner.webhooks.notices, [automationRunOutbox(runs), deploymentNotices]);
  const threads = new DeploymentPlaces({ workspaceRoot: config.workspaceRoot, docker, deployments: new DeploymentSecretRefs(mongo.db), secrets, logger: log });
  return { services, store, provisioning, workspaces, dreams, webhooks, sender, notices, threads };
}

/** The Docker engine of the `docker` sandbox backend, when one answers (`DEPLOYMENT_DOCKER=auto`); says which backend deployments get. */
export async function detectSandboxEngine(config: Config, log: Logger): Promise<DockerEngine | null> {
  const engine = config.docker.enabled ? await DockerEngine.detect(config.docker) : null;
  if (engine)
    log.info("a Docker engine answers: deployments with sandbox.type docker run in containers", {
      engine: engine.version,
      image: config.docker.image,
      network: config.docker.network,
    });
  else log.info("no Docker engine is used: every deployment's sandbox is the local backend", { looked: config.docker.enabled });
  return engine;
}

/** Deployment records, whose writers take turns by a Redis lock per record. */
export function deploymentStore(db: Db, locks: Locks): DeploymentStore {
  return new DeploymentStore(db, (id, write) => locks.withRecord("deployments", id, write));
}

/** What the core asks of deployments at composition: who names a secret, and what a deployment's features allow its automations. */
export function deploymentsForCore(db: Db, locks: Locks): { secretUsers: SecretUsers; automationGate: AutomationGate } {
  return { secretUsers: new DeploymentSecretRefs(db), automationGate: new DeploymentFeatureGate(deploymentStore(db, locks)) };
}

/** What the deployments' sweeps run over. */
export type DeploymentSweeps = Pick<DeploymentParts, "provisioning" | "workspaces" | "dreams" | "webhooks" | "notices" | "sender">;

/**
 * Recovers provisioning and teardown left by dead processes, removes expired snapshots, starts dreams and
 * scans workspaces every `sweepMs`; queues the webhook notices of runs and deployments, and sends the due
 * deliveries, every `sendMs`.
 */
export function startDeploymentSweeps(parts: DeploymentSweeps, every: { sweepMs: number; sendMs: number }, onError: (err: unknown) => void): () => void {
  const timers = [
    repeat(every.sweepMs, onError, () => {
      const now = new Date();
      return Promise.all([parts.provisioning.sweep(), parts.workspaces.sweep(now), parts.dreams.sweep(now), parts.webhooks.sweep(now)]);
    }),
    repeat(every.sendMs, onError, () => parts.notices.sweep().then(() => parts.sender.sweep(new Date()))),
  ];
  return () => timers.forEach(clearInterval);
}

/** Runs `work` every `ms`, never two at once. */
function repeat(ms: number, onError: (err: unknown) => void, work: () => Promise<unknown>): NodeJS.Timeout {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    work()
      .catch(onError)
      .finally(() => (running = false));
  }, ms);
  timer.unref();
  return timer;
}
