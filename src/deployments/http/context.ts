/** What the deployments interface's handlers can reach: services of the process, built once at start. */
import type { Config } from "../../config.js";
import type { Logger } from "../../log.js";
import type { IdempotencyKeys } from "../../idempotency/index.js";
import type { AccessService } from "../../accounts/access.js";
import type { AutomationService } from "../../automations/automations.js";
import type { DeploymentService } from "../deployments.js";
import type { DeploymentThreads } from "../threads.js";
import type { CreditService } from "../../accounts/credits.js";
import type { SecretService } from "../../vaults/secrets.js";
import type { FilesystemWebhooks } from "../filesystem-webhooks.js";
import type { DeploymentDoc } from "../store/deployments.js";
import type { WebhookDeliveryStore } from "../../webhooks/store/webhook-deliveries.js";
import type { EventStreams } from "../../streaming/event-stream.js";
import type { OpenStreams } from "../../streaming/redis/open-streams.js";
import type { Validator } from "../../http/validate.js";

export interface DeploymentServices {
  config: Config;
  log: Logger;
  validator: Validator;
  idempotency: IdempotencyKeys;
  access: AccessService;
  deployments: DeploymentService;
  automations: AutomationService;
  threads: DeploymentThreads;
  streams: EventStreams<Buffer>;
  /** Places for open event streams, shared with the core interface's. */
  openStreams: OpenStreams;
  webhooks: FilesystemWebhooks;
  secrets: SecretService;
  credits: CreditService;
  deliveries: WebhookDeliveryStore;
  /** Where a deployment's workspace is, as its tools see it (`/workspace` when isolated). */
  workspacePathOf(d: DeploymentDoc): string;
}
