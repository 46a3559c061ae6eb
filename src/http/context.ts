/** What request handlers can reach: the services of one process, built once at start. */
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import type { IdempotencyKeys } from "../redis/idempotency.js";
import type { OpenStreams } from "../redis/open-streams.js";
import type { AccessService } from "../services/access.js";
import type { AgentVaultService } from "../services/agent-vaults.js";
import type { AgentService } from "../services/agents.js";
import type { AutomationService } from "../services/automations.js";
import type { EventStreams } from "../services/event-stream.js";
import type { EventService } from "../services/events.js";
import type { HealthService } from "../services/health.js";
import type { McpInstallationService } from "../services/mcp-installations.js";
import type { CredentialService } from "../services/credentials.js";
import type { McpServerTests } from "../services/mcp-server-tests.js";
import type { SessionService } from "../services/sessions.js";
import type { VaultService } from "../services/vaults.js";
import type { WebhookEndpoints } from "../services/webhook-endpoints.js";
import type { Principal } from "../store/organizations.js";
import type { Validator } from "./validate.js";

export interface Services {
  config: Config;
  log: Logger;
  validator: Validator;
  access: AccessService;
  health: HealthService;
  agents: AgentService;
  sessions: SessionService;
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
