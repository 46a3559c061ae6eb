/**
 * An organization's webhook endpoints: created with a new signing secret (answered once, and again only
 * by a rotation, which replaces it), read, changed, removed with their delivery log, and the log itself
 * with one more attempt of a delivery on request. Another organization's endpoint is not found.
 */
import { MAX_WEBHOOK_ENDPOINTS, ROTATION_OVERLAP_MS } from "./domain/webhooks.js";
import { serverUrlProblem } from "../vaults/domain/mcp-server-url.js";
import { AppError, conflict, notFound, validationError } from "../errors.js";
import { newId } from "../ids.js";
import type { Page } from "../agents/store/agents.js";
import type { DeliveryDoc, WebhookDeliveryStore } from "./store/webhook-deliveries.js";
import type { EndpointChanges, WebhookEndpointRecord, WebhookEndpointStore } from "./store/webhook-endpoints.js";
import { newWebhookSecret } from "./webhook-signature.js";
import type { Once } from "../idempotency/redis/once-marks.js";
import { createKept, keptId, type Kept } from "../idempotency/kept-creates.js";
import type { FromSchemas } from "../../schemas/index.js";
import type { webhookEndpointCreateSchema } from "../../schemas/webhook-endpoint-create.js";
import type { webhookEndpointPatchSchema } from "../../schemas/webhook-endpoint-patch.js";

/** A create body, and a change (any subset of its fields), as the schemas accept them. */
export type EndpointInput = FromSchemas<typeof webhookEndpointCreateSchema>;
export type EndpointChange = FromSchemas<typeof webhookEndpointPatchSchema>;

/** Runs `work` while no other creation for the organization runs (the count and the insert are two steps). */
export type OrgTurns = <T>(orgId: string, work: () => Promise<T>) => Promise<T>;

function checkedUrl(url: string | undefined): void {
  const problem = url === undefined ? null : serverUrlProblem(url);
  if (problem) throw validationError(`url: ${problem}`);
}

export class WebhookEndpoints {
  constructor(
    private readonly store: WebhookEndpointStore,
    private readonly deliveries: WebhookDeliveryStore,
    private readonly turns: OrgTurns,
  ) {}

  /**
   * Under an Idempotency-Key (`kept-creates.ts`), a retry finds the endpoint its first attempt made, and
   * answers its secret: that attempt's answer, the only one to show it, was lost.
   */
  async create(orgId: string, input: EndpointInput, once?: Once): Promise<Kept<{ endpoint: WebhookEndpointRecord; secret: string }>> {
    checkedUrl(input.url);
    if (!this.store.canSeal) throw new AppError("unavailable", "webhook secrets cannot be stored: the service has no VAULT_ENCRYPTION_KEY");
    return this.turns(orgId, () =>
      createKept(
        keptId("whk", once),
        async (id) => {
          const found = await this.store.get(orgId, id);
          const secret = found && (await this.store.secretOf(id));
          return found && secret ? { endpoint: found, secret } : null;
        },
        async (id = newId("whk")) => {
          if ((await this.store.count(orgId)) >= MAX_WEBHOOK_ENDPOINTS)
            throw conflict(`an organization has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first`);
          const secret = newWebhookSecret();
          const endpoint = await this.store.create(
            { _id: id, orgId, url: input.url, description: input.description ?? null, eventTypes: input.eventTypes ?? null, enabled: input.enabled ?? true },
            secret,
          );
          return { endpoint, secret };
        },
      ),
    );
  }

  list(orgId: string, page: { limit: number; offset: number }): Promise<Page<WebhookEndpointRecord>> {
    return this.store.list(orgId, page);
  }

  async get(orgId: string, id: string): Promise<WebhookEndpointRecord> {
    return (await this.store.get(orgId, id)) ?? missing();
  }

  async update(orgId: string, id: string, input: EndpointChange): Promise<WebhookEndpointRecord> {
    checkedUrl(input.url);
    const changes: EndpointChanges = {
      ...(input.url === undefined ? {} : { url: input.url }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.eventTypes === undefined ? {} : { eventTypes: input.eventTypes }),
      ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
    };
    return (await this.store.update(orgId, id, changes)) ?? missing();
  }

  /** A new signing secret, answered once; the old one signs nothing from now on. */
  /** A new secret; the replaced one keeps signing beside it for ROTATION_OVERLAP_MS, while receivers move over. */
  async rotate(orgId: string, id: string): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
    if (!this.store.canSeal) throw new AppError("unavailable", "webhook secrets cannot be stored: the service has no VAULT_ENCRYPTION_KEY");
    const secret = newWebhookSecret();
    return this.turns(orgId, async () => ({ endpoint: (await this.store.rotate(orgId, id, secret, ROTATION_OVERLAP_MS)) ?? missing(), secret }));
  }

  async remove(orgId: string, id: string): Promise<void> {
    if (!(await this.store.remove(orgId, id))) missing();
    await this.deliveries.removeForEndpoint(id);
  }

  async deliveryLog(orgId: string, id: string, page: { limit: number; offset: number }): Promise<Page<DeliveryDoc>> {
    await this.get(orgId, id);
    return this.deliveries.endpointPage(id, page);
  }

  async delivery(orgId: string, id: string, deliveryId: string): Promise<DeliveryDoc> {
    await this.get(orgId, id);
    return (await this.deliveries.endpointDelivery(id, deliveryId)) ?? missing("webhook delivery");
  }

  /** Queues one more attempt of a delivered or failed delivery, now (a pending one is already queued). */
  async retry(orgId: string, id: string, deliveryId: string): Promise<DeliveryDoc> {
    const delivery = await this.delivery(orgId, id, deliveryId);
    if (delivery.status === "pending") return delivery;
    return (await this.deliveries.retry(id, deliveryId, new Date())) ?? (await this.delivery(orgId, id, deliveryId));
  }
}

function missing(what = "webhook endpoint"): never {
  throw notFound(what);
}
