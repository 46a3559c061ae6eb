/** What request handlers can reach: the services of one process, built once at start. */
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import type { IdempotencyKeys } from "../idempotency/index.js";
import type { OpenStreams } from "../streaming/redis/open-streams.js";
import type { AccessService } from "../accounts/access.js";
import type { AgentVaultService } from "../vaults/agent-vaults.js";
import type { AgentService } from "../agents/agents.js";
import type { AutomationService } from "../automations/automations.js";
import type { EventStreams } from "../streaming/event-stream.js";
import type { EventService } from "../sessions/events.js";
import type { HealthService } from "../health/readiness.js";
import type { McpInstallationService } from "../vaults/mcp-installations.js";
import type { CredentialService } from "../vaults/credentials.js";
import type { McpServerTests } from "../vaults/mcp-server-tests.js";
import type { SessionService } from "../sessions/sessions.js";
import type { SessionForks } from "../sessions/forks.js";
import type { VaultService } from "../vaults/vaults.js";
import type { WebhookEndpoints } from "../webhooks/webhook-endpoints.js";
import type { Principal } from "../accounts/store/organizations.js";
import type { Validator } from "./validate.js";

export interface Services {
  config: Config;
  log: Logger;
  validator: Validator;
  access: AccessService;
  health: HealthService;
  agents: AgentService;
  sessions: SessionService;
  forks: SessionForks;
  events: EventService;
  automations: AutomationService;
  vaults: VaultService;
  agentVaults: AgentVaultService;
  credentials: CredentialService;
  mcpServerTests: McpServerTests;
  mcpInstallations: McpInstallationService;
  webhooks: WebhookEndpoints;
  /** Where the POSTs' Idempotency-Keys are kept. */
  idempotency: IdempotencyKeys;
  /** Session event streams, each frame encoded once as SSE bytes. */
  streams: EventStreams<Buffer>;
  /** Places for open event streams: how many an organization holds at once, across processes. */
  openStreams: OpenStreams;
}

export interface AppState {
  requestId: string;
  principal?: Principal;
  /** The count of this request against the key's ceiling, under way (rejects with `rate_limited`). */
  ceiling?: Promise<void>;
}
