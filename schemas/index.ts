/**
 * The JSON Schemas of the interface, one module per body, query, path, resource and error. They are the
 * one source of three things: request validation (Ajv compiles them at start; a bad one stops it), the
 * TypeScript types of the shapes the interface accepts and answers (`FromSchemas`, derived by
 * json-schema-to-ts, never written by hand), and the OpenAPI document. Schemas name each other by `$id`
 * in `$ref`.
 */
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import { agentSchema } from "./agent.js";
import { agentCreateSchema } from "./agent-create.js";
import { agentListSchema } from "./agent-list.js";
import { agentPatchSchema } from "./agent-patch.js";
import { agentPathSchema } from "./agent-path.js";
import { agentRateLimitsPatchSchema } from "./agent-rate-limits-patch.js";
import { agentSubjectBudgetPutSchema } from "./agent-subject-budget-put.js";
import { agentVaultsSchema } from "./agent-vaults.js";
import { agentVaultsPutSchema } from "./agent-vaults-put.js";
import { agentVersionSchema } from "./agent-version.js";
import { agentVersionListSchema } from "./agent-version-list.js";
import { agentsListQuerySchema } from "./agents-list-query.js";
import { attachmentSchema } from "./attachment.js";
import { automationSchema } from "./automation.js";
import { callableAgentSchema } from "./callable-agent.js";
import { automationCreateSchema } from "./automation-create.js";
import { automationListSchema } from "./automation-list.js";
import { automationPatchSchema } from "./automation-patch.js";
import { automationPathSchema } from "./automation-path.js";
import { automationRunSchema } from "./automation-run.js";
import { automationRunListSchema } from "./automation-run-list.js";
import { deletedSchema } from "./deleted.js";
import { deploymentSchema } from "./deployment.js";
import { deploymentAutomationPathSchema } from "./deployment-automation-path.js";
import { deploymentCreditsSchema } from "./deployment-credits.js";
import { deploymentCreateSchema } from "./deployment-create.js";
import { deploymentCreatedSchema } from "./deployment-created.js";
import { deploymentDeleteQuerySchema } from "./deployment-delete-query.js";
import { deploymentDeletedSchema } from "./deployment-deleted.js";
import { deploymentEventsQuerySchema } from "./deployment-events-query.js";
import { deploymentFileSchema } from "./deployment-file.js";
import { deploymentFilePathSchema } from "./deployment-file-path.js";
import { deploymentWebhookSchema } from "./deployment-webhook.js";
import { deploymentWebhookDeliveryListSchema } from "./deployment-webhook-delivery-list.js";
import { deploymentWebhookDeletedSchema } from "./deployment-webhook-deleted.js";
import { deploymentWebhookPutSchema } from "./deployment-webhook-put.js";
import { deploymentThreadSchema } from "./deployment-thread.js";
import { deploymentThreadListSchema } from "./deployment-thread-list.js";
import { deploymentPageQuerySchema } from "./deployment-page-query.js";
import { deploymentThreadCreateSchema } from "./deployment-thread-create.js";
import { deploymentThreadPathSchema } from "./deployment-thread-path.js";
import { deploymentFeaturesSchema } from "./deployment-features.js";
import { deploymentListSchema } from "./deployment-list.js";
import { deploymentListQuerySchema } from "./deployment-list-query.js";
import { deploymentMcpServerSchema } from "./deployment-mcp-server.js";
import { deploymentPatchSchema } from "./deployment-patch.js";
import { deploymentPathSchema } from "./deployment-path.js";
import { deploymentSandboxSchema } from "./deployment-sandbox.js";
import { deploymentSkillSchema } from "./deployment-skill.js";
import { deploymentSummarySchema } from "./deployment-summary.js";
import { credentialSchema } from "./credential.js";
import { credentialAuthInputSchema } from "./credential-auth-input.js";
import { credentialCreateSchema } from "./credential-create.js";
import { credentialListSchema } from "./credential-list.js";
import { credentialPathSchema } from "./credential-path.js";
import { credentialUpdateSchema } from "./credential-update.js";
import { secretSchema } from "./secret.js";
import { secretCreateSchema } from "./secret-create.js";
import { secretListSchema } from "./secret-list.js";
import { secretPathSchema } from "./secret-path.js";
import { secretUpdateSchema } from "./secret-update.js";
import { secretDeletedSchema } from "./secret-deleted.js";
import { secretValueSchema } from "./secret-value.js";
import { serverUrlSchema } from "./server-url.js";
import { vaultSchema } from "./vault.js";
import { webhookDeliverySchema } from "./webhook-delivery.js";
import { webhookDeliveryListSchema } from "./webhook-delivery-list.js";
import { webhookDeliveryPathSchema } from "./webhook-delivery-path.js";
import { webhookEndpointSchema } from "./webhook-endpoint.js";
import { webhookEndpointCreateSchema } from "./webhook-endpoint-create.js";
import { webhookEndpointListSchema } from "./webhook-endpoint-list.js";
import { webhookEndpointPatchSchema } from "./webhook-endpoint-patch.js";
import { webhookEndpointPathSchema } from "./webhook-endpoint-path.js";
import { webhookEventTypeSchema } from "./webhook-event-type.js";
import { vaultCreateSchema } from "./vault-create.js";
import { vaultListSchema } from "./vault-list.js";
import { vaultPathSchema } from "./vault-path.js";
import { pageQuerySchema } from "./page-query.js";
import { errorSchema } from "./error.js";
import { eventSchema } from "./event.js";
import { eventPayloadSchema } from "./event-payload.js";
import { OUTBOUND_EVENT_SCHEMAS } from "./outbound-events.js";
import { eventListSchema } from "./event-list.js";
import { eventsAcceptedSchema } from "./events-accepted.js";
import { eventsListQuerySchema } from "./events-list-query.js";
import { eventsPostSchema } from "./events-post.js";
import { eventsStreamQuerySchema } from "./events-stream-query.js";
import { healthSchema } from "./health.js";
import { inboundEventSchema } from "./inbound-event.js";
import { mcpInstallationSchema } from "./mcp-installation.js";
import { mcpInstallationCreateSchema } from "./mcp-installation-create.js";
import { mcpServerSchema } from "./mcp-server.js";
import { mcpServerPathSchema } from "./mcp-server-path.js";
import { mcpServerTestSchema } from "./mcp-server-test.js";
import { metadataSchema } from "./metadata.js";
import { modelNameSchema } from "./model-name.js";
import { offsetPaginationSchema } from "./offset-pagination.js";
import { openapiDocumentSchema } from "./openapi-document.js";
import { permissionPolicySchema } from "./permission-policy.js";
import { rateLimitsSchema } from "./rate-limits.js";
import { roleSchema } from "./role.js";
import { sandboxWarmSchema } from "./sandbox-warm.js";
import { sandboxWarmResultSchema } from "./sandbox-warm-result.js";
import { sessionCompactionSchema } from "./session-compaction.js";
import { sessionSchema } from "./session.js";
import { sessionCreateSchema } from "./session-create.js";
import { sessionForkSchema } from "./session-fork.js";
import { sessionListSchema } from "./session-list.js";
import { sessionPathSchema } from "./session-path.js";
import { sessionUpdateSchema } from "./session-update.js";
import { sessionsListQuerySchema } from "./sessions-list-query.js";
import { skillSchema } from "./skill.js";
import { stopReasonSchema } from "./stop-reason.js";
import { subjectIdSchema } from "./subject-id.js";
import { subjectPathSchema } from "./subject-path.js";
import { subjectSpendSchema } from "./subject-spend.js";
import { textBlockSchema } from "./text-block.js";
import { textContentSchema } from "./text-content.js";
import { timestampSchema } from "./timestamp.js";
import { toolSchema } from "./tool.js";
import { toolAgentToolsetSchema } from "./tool-agent-toolset.js";
import { toolCustomToolSchema } from "./tool-custom-tool.js";
import { toolDefaultConfigSchema } from "./tool-default-config.js";
import { toolMcpToolsetSchema } from "./tool-mcp-toolset.js";
import { toolsSchema } from "./tools.js";
import { usageSchema } from "./usage.js";
import { versionPathSchema } from "./version-path.js";
import { userMessageSchema } from "./user-message.js";
import { userSteerSchema } from "./user-steer.js";
import { userInterruptSchema } from "./user-interrupt.js";
import { userApprovalResponseSchema } from "./user-approval-response.js";
import { userCustomToolResultSchema } from "./user-custom-tool-result.js";
import { userClarifyResultSchema } from "./user-clarify-result.js";

/** What requests carry: bodies, queries, path parameters and their parts. */
export const REQUEST_SCHEMAS = [
  agentCreateSchema,
  agentPatchSchema,
  agentPathSchema,
  agentRateLimitsPatchSchema,
  agentSubjectBudgetPutSchema,
  agentVaultsPutSchema,
  agentsListQuerySchema,
  attachmentSchema,
  automationCreateSchema,
  automationPatchSchema,
  automationPathSchema,
  credentialAuthInputSchema,
  credentialCreateSchema,
  credentialPathSchema,
  credentialUpdateSchema,
  deploymentAutomationPathSchema,
  deploymentCreateSchema,
  deploymentDeleteQuerySchema,
  deploymentEventsQuerySchema,
  deploymentFeaturesSchema,
  deploymentFilePathSchema,
  deploymentThreadCreateSchema,
  deploymentPageQuerySchema,
  deploymentThreadPathSchema,
  deploymentWebhookPutSchema,
  deploymentListQuerySchema,
  deploymentMcpServerSchema,
  deploymentPatchSchema,
  deploymentPathSchema,
  deploymentSandboxSchema,
  deploymentSkillSchema,
  eventsListQuerySchema,
  eventsPostSchema,
  eventsStreamQuerySchema,
  inboundEventSchema,
  userMessageSchema,
  userSteerSchema,
  userInterruptSchema,
  userApprovalResponseSchema,
  userCustomToolResultSchema,
  userClarifyResultSchema,
  mcpInstallationCreateSchema,
  mcpServerSchema,
  mcpServerPathSchema,
  metadataSchema,
  modelNameSchema,
  permissionPolicySchema,
  rateLimitsSchema,
  roleSchema,
  callableAgentSchema,
  sandboxWarmSchema,
  secretCreateSchema,
  secretPathSchema,
  secretUpdateSchema,
  secretValueSchema,
  serverUrlSchema,
  sessionCreateSchema,
  sessionForkSchema,
  sessionPathSchema,
  sessionUpdateSchema,
  sessionsListQuerySchema,
  skillSchema,
  subjectIdSchema,
  subjectPathSchema,
  textBlockSchema,
  textContentSchema,
  toolSchema,
  toolAgentToolsetSchema,
  toolCustomToolSchema,
  toolDefaultConfigSchema,
  toolMcpToolsetSchema,
  toolsSchema,
  vaultCreateSchema,
  vaultPathSchema,
  pageQuerySchema,
  versionPathSchema,
  webhookDeliveryPathSchema,
  webhookEndpointCreateSchema,
  webhookEndpointPatchSchema,
  webhookEndpointPathSchema,
  webhookEventTypeSchema,
] as const;

/** What responses carry: resources, lists, results and errors. */
export const RESPONSE_SCHEMAS = [
  agentSchema,
  agentListSchema,
  agentVaultsSchema,
  agentVersionSchema,
  agentVersionListSchema,
  automationSchema,
  automationListSchema,
  automationRunSchema,
  automationRunListSchema,
  credentialSchema,
  credentialListSchema,
  deletedSchema,
  deploymentSchema,
  deploymentCreatedSchema,
  deploymentDeletedSchema,
  deploymentFileSchema,
  deploymentListSchema,
  deploymentThreadSchema,
  deploymentThreadListSchema,
  deploymentWebhookSchema,
  deploymentWebhookDeliveryListSchema,
  deploymentWebhookDeletedSchema,
  deploymentSummarySchema,
  secretSchema,
  secretListSchema,
  errorSchema,
  eventSchema,
  eventPayloadSchema,
  ...OUTBOUND_EVENT_SCHEMAS,
  eventListSchema,
  eventsAcceptedSchema,
  healthSchema,
  mcpServerTestSchema,
  mcpInstallationSchema,
  offsetPaginationSchema,
  openapiDocumentSchema,
  sandboxWarmResultSchema,
  sessionCompactionSchema,
  sessionSchema,
  sessionListSchema,
  stopReasonSchema,
  subjectSpendSchema,
  timestampSchema,
  usageSchema,
  vaultSchema,
  vaultListSchema,
  secretDeletedSchema,
  deploymentCreditsSchema,
  webhookEndpointSchema,
  webhookEndpointListSchema,
  webhookDeliverySchema,
  webhookDeliveryListSchema,
] as const;

export const SCHEMAS = [...REQUEST_SCHEMAS, ...RESPONSE_SCHEMAS] as const;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The TypeScript type of a schema's values. Request schemas are always references; a response schema
 * names the response schemas it refers to in `Named` (`FromSchemas<typeof eventSchema, [typeof
 * usageSchema, …]>`): resolving `$ref`s against every schema costs the type checker more than it allows
 * in one file. A `$ref` that names no schema given makes the type `never`.
 */
export type FromSchemas<S, Named extends readonly (JSONSchema & { readonly $id: string })[] = []> = S extends object
  ? FromSchema<S, { references: [...Mutable<typeof REQUEST_SCHEMAS>, ...Named] }>
  : never;
