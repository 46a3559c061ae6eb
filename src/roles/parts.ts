/**
 * The parts a process is composed of, grouped by what they are: the process's own basics, its
 * connections, the MongoDB stores, the Redis-backed parts, the services beneath the HTTP layer, and the
 * HTTP layer's services. Each role's builder names the parts it stands on (`WorkerParts`, `SchedulerParts`,
 * `DeploymentCoreParts`), picked from these.
 */
import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { Services } from "../http/context.js";
import type { Validator } from "../http/validate.js";
import type { Logger } from "../log.js";
import type { Mongo } from "../mongo/mongo.js";
import type { GuardedFetch } from "../outbound/outbound.js";
import type { OutboundPolicy } from "../outbound/outbound-policy.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import type { Locks } from "../redis/locks.js";
import type { ShardReader } from "../redis/shard-connections.js";
import type { OrganizationStore } from "../accounts/store/organizations.js";
import type { CreditService } from "../accounts/credits.js";
import type { AgentStore } from "../agents/store/agents.js";
import type { AutomationOccurrences } from "../automations/automation-occurrences.js";
import type { AutomationGate } from "../automations/automation-runs.js";
import type { AutomationQueue } from "../automations/redis/automation-queue.js";
import type { AutomationStore } from "../automations/store/automations.js";
import type { Budgets } from "../sessions/budgets.js";
import type { EventAppender } from "../sessions/redis/event-appender.js";
import type { EventLog } from "../sessions/redis/event-log.js";
import type { Intents } from "../sessions/redis/intents.js";
import type { Preparations } from "../sessions/redis/preparation-hints.js";
import type { SessionEndings } from "../sessions/redis/session-endings.js";
import type { Wakeups } from "../sessions/redis/wakeups.js";
import type { StatusProjector } from "../sessions/status-projector.js";
import type { SessionFactsCache } from "../sessions/session-facts.js";
import type { SessionStore } from "../sessions/store/sessions.js";
import type { SessionTransitions } from "../sessions/transitions.js";
import type { LiveStream } from "../streaming/redis/live-stream.js";
import type { StreamReader } from "../streaming/redis/stream-reader.js";
import type { McpConnections } from "../vaults/mcp/mcp-connections.js";
import type { McpAccess } from "../vaults/mcp-access.js";
import type { SecretService } from "../vaults/secrets.js";
import type { AgentVaultStore } from "../vaults/store/agent-vaults.js";
import type { CredentialStore } from "../vaults/store/vault-credentials.js";
import type { VaultStore } from "../vaults/store/vaults.js";
import type { WebhookParts } from "./webhooks.js";

/** The process's own basics: settings, log, clock, request validation, the outbound guard, MCP connections, the shared SSE reader. */
export interface ProcessParts {
  config: Config;
  log: Logger;
  /** The time automations are scheduled by. */
  clock: Clock;
  validator: Validator;
  /** The one outbound policy (public addresses, the allow-list), and the fetch it guards: every request to a URL a caller configured. */
  outboundPolicy: OutboundPolicy;
  outbound: GuardedFetch;
  mcpPool: McpConnections;
  /** The process's shared SSE reader, started on first use; and its stop. */
  streamReader(): StreamReader;
  stopReader(): Promise<void>;
}

export interface Connections {
  mongo: Mongo;
  /** The shared command connection. */
  redis: RedisClient;
  /** The key names of the layout (single node or cluster). */
  keys: Keys;
  /** One blocking connection per group of shards, labelled `name`. */
  readers(name: string): ShardReader[];
}

/** The MongoDB stores the roles share. */
export interface Stores {
  organizations: OrganizationStore;
  agents: AgentStore;
  sessions: SessionStore;
  vaults: VaultStore;
  credentials: CredentialStore;
  agentVaults: AgentVaultStore;
  automations: AutomationStore;
}

/** What lives in Redis beside the connection: the sessions' logs and streams, their wake-ups and endings, locks, the automation queue. */
export interface RedisParts {
  eventLog: EventLog;
  /** The compare-and-set append, for the session transitions only (and tests that race them). */
  appender: EventAppender;
  live: LiveStream;
  intents: Intents;
  wakeups: Wakeups;
  endings: SessionEndings;
  preparations: Preparations;
  locks: Locks;
  automationQueue: AutomationQueue;
}

/** The services beneath the HTTP layer's, which the roles build on. */
export interface InnerServices {
  /** The one writer of session state, and the projection of its commits into MongoDB. */
  transitions: SessionTransitions;
  projector: StatusProjector;
  /** What a session is (its organization, agent, subject): facts that never change, cached once per process. */
  sessionFacts: SessionFactsCache;
  budgets: Budgets;
  mcp: McpAccess;
  occurrences: AutomationOccurrences;
  /** What a deployment's features allow its automations (the deployments module supplies it). */
  automationGate: AutomationGate;
  credits: CreditService;
  secrets: SecretService;
  /** Organizations' webhooks: endpoints, the delivery queue, notices. */
  webhooks: WebhookParts;
}

/** Everything one process is built from: the HTTP layer's services, and the parts beneath them. */
export interface Core {
  process: ProcessParts;
  connections: Connections;
  stores: Stores;
  redis: RedisParts;
  inner: InnerServices;
  /** What the HTTP interface's handlers reach. */
  services: Services;
}
