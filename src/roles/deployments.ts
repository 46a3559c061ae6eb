/**
 * The deployments interface's part of the composition root: its services, built over the core's
 * components, and its background sweeps (provisioning and teardown recovery, expired snapshots).
 */
import type { Db } from "mongodb";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import type { Validator } from "../http/validate.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import type { Locks } from "../redis/locks.js";
import type { OpenStreams } from "../streaming/redis/open-streams.js";
import type { AutomationQueue } from "../automations/redis/automation-queue.js";
import type { IdempotencyKeys } from "../idempotency/index.js";
import type { AccessService } from "../accounts/access.js";
import type { AutomationService } from "../automations/automations.js";
import type { EventStreams } from "../streaming/event-stream.js";
import type { EventService } from "../sessions/events.js";
import type { McpAccess } from "../vaults/mcp-access.js";
import type { SessionService } from "../sessions/sessions.js";
import type { AgentStore } from "../agents/store/agents.js";
import type { SessionStore } from "../sessions/store/sessions.js";
import type { AutomationStore } from "../automations/store/automations.js";
import type { Fetch } from "../outbound/outbound.js";
import type { DeploymentServices } from "../deployments/http/context.js";
import { SkillEpochs } from "../agent-tools/redis/skill-epochs.js";
import { DeploymentLeftovers } from "../deployments/agent-leftovers.js";
import { DeploymentDreams } from "../deployments/dreams.js";
import { DeploymentProvisioning } from "../deployments/provisioning.js";
import { SkillSources } from "../deployments/skills.js";
import { DeploymentThreads } from "../deployments/threads.js";
import { LocalWorkspaces } from "../deployments/workspaces.js";
import { DeploymentService } from "../deployments/deployments.js";
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
import { RecordNotices } from "../webhooks/record-notices.js";
import { DeploymentWebhookStore } from "../deployments/store/webhooks.js";
import { SecretBox } from "../vaults/store/secret-box.js";
import { CreditService } from "../accounts/credits.js";
import { DeploymentFeatureGate } from "../deployments/feature-gate.js";
import { SecretService } from "../vaults/secrets.js";
import { CreditStore } from "../accounts/store/credits.js";
import { DeploymentSecretRefs } from "../deployments/store/secret-refs.js";
import { SecretStore } from "../vaults/store/secrets.js";
import { deliveryTarget, type WebhookParts } from "./webhooks.js";

export type DeploymentParts = ReturnType<typeof buildDeployments>;

/** The core components the deployments interface is built over. */
export interface CoreParts {
  config: Config;
  log: Logger;
  /** The engine of the `docker` sandbox backend, when one answered at start. */
  docker: DockerEngine | null;
  mongo: { db: Db };
  redis: RedisClient;
  keys: Keys;
  locks: Locks;
  validator: Validator;
  idempotency: IdempotencyKeys;
  access: AccessService;
  agentStore: AgentStore;
  automationStore: AutomationStore;
  automationQueue: AutomationQueue;
  automations: AutomationService;
  sessions: SessionService;
  sessionStore: SessionStore;
  events: EventService;
  mcp: McpAccess;
  outbound: Fetch;
  streams: EventStreams<Buffer>;
  openStreams: OpenStreams;
  /** Organizations' webhooks, whose delivery queue and sender the filesystem webhooks share. */
  webhookParts: WebhookParts;
}

export function buildDeployments(c: CoreParts, account: { credits: CreditService; secrets: SecretService }) {
  const { config, log, mongo } = c;
  const store = deploymentStore(mongo.db, c.locks);
  const workspaces = new LocalWorkspaces(config.workspaceRoot, c.docker, new SnapshotStore(mongo.db), config.snapshotRetentionMs, log);
  const hooks = new DeploymentWebhookStore(mongo.db, config.vaultKeys && new SecretBox(config.vaultKeys.current, config.vaultKeys.older), (id, write) =>
    c.locks.withRecord("workspace_manifests", id, write),
  );
  const { deliveries } = c.webhookParts;
  const leftovers = new DeploymentLeftovers({
    memories: new MemoryStore(mongo.db),
    skills: new SubjectSkillStore(mongo.db, new SkillEpochs(c.redis, c.keys)),
    grants: new ToolGrantStore(mongo.db),
    automations: c.automationStore,
    runs: new AutomationRunStore(mongo.db),
    queue: c.automationQueue,
    hooks,
    deliveries,
  });
  const notices = new RecordNotices({ runs: new AutomationRunStore(mongo.db), deployments: store, notices: c.webhookParts.notices });
  const provisioning = new DeploymentProvisioning({
    store,
    agents: c.agentStore,
    sessions: c.sessions,
    events: c.events,
    mcp: c.mcp,
    workspaces,
    leftovers,
    notices,
    logger: log,
    leaseMs: config.deploymentLeaseMs,
  });
  const deployments = new DeploymentService({
    store,
    skills: new SkillSources(c.outbound, workspaceFiles(config.workspaceRoot, sandboxUser)),
    secrets: account.secrets,
    credits: account.credits,
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
  const sender = new WebhookSender(deliveries, deliveryTarget(hooks, c.webhookParts.endpoints), c.outbound, log, {
    maxAttempts: config.webhookMaxAttempts,
    firstRetryMs: config.webhookRetryFirstMs,
    maxRetryMs: config.webhookRetryMaxMs,
    timeoutMs: config.webhookTimeoutMs,
  });
  const services: DeploymentServices = {
    config,
    log,
    validator: c.validator,
    idempotency: c.idempotency,
    access: c.access,
    deployments,
    automations: c.automations,
    threads: new DeploymentThreads(deployments, c.sessions, c.sessionStore, c.events, account.credits, config.workspaceRoot),
    streams: c.streams,
    openStreams: c.openStreams,
    webhooks,
    deliveries,
    secrets: account.secrets,
    credits: account.credits,
    workspacePathOf: (d) => deploymentWorkspacePath(config.workspaceRoot, d, c.docker),
  };
  const dreams = new DeploymentDreams({ store, sessionStore: c.sessionStore, sessions: c.sessions, events: c.events, logger: log, idleMs: config.dreamIdleMs });
  return { services, store, provisioning, workspaces, dreams, webhooks, sender, notices };
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

/** What an account (organization) holds beside its agents: credits, secrets, and the deployment features the core obeys. */
export function buildAccount(db: Db, box: SecretBox | undefined, locks: Locks) {
  const secretRefs = new DeploymentSecretRefs(db);
  return {
    credits: new CreditService(new CreditStore(db)),
    secrets: new SecretService(new SecretStore(db, box), secretRefs),
    secretRefs,
    gate: new DeploymentFeatureGate(deploymentStore(db, locks)),
  };
}

/**
 * Recovers provisioning and teardown left by dead processes, removes expired snapshots, starts dreams and
 * scans workspaces every `sweepMs`; queues the webhook notices of runs and deployments, and sends the due
 * deliveries, every `sendMs`.
 */
export function startDeploymentSweeps(parts: DeploymentParts, every: { sweepMs: number; sendMs: number }, onError: (err: unknown) => void): () => void {
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
