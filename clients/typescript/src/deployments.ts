/**
 * The client of the deployments interface (its own port, Bearer keys with the `deployments:read` and
 * `deployments:write` scopes): deployments, their threads and events, automations and webhook, secrets
 * and credits, typed by that interface's own generated document, with the core client's errors, retries
 * and `Idempotency-Key`s. Its lists page by `next_cursor`.
 */
import { connect, type ConnectionOptions } from "./api.js";
import type { operations, paths } from "./generated/deployments.js";
import { cursorPages } from "./pagination.js";
import { init, ok, type RequestOptions } from "./request.js";

type Op = keyof operations;
/** The JSON body a deployments operation takes. */
export type DeploymentsBody<O extends Op> = operations[O] extends { requestBody: { content: { "application/json": infer B } } } ? B : never;
/** The query a deployments operation takes, its defaults optional. */
export type DeploymentsQuery<O extends Op> = operations[O] extends { parameters: { query?: infer Q } } ? Partial<NonNullable<Q>> : never;

const withCursor = <Q extends object>(query: Q, cursor: string | undefined) => ({ ...query, ...(cursor !== undefined ? { cursor } : {}) });

/** `apiKey` is sent as `Authorization: Bearer`, the header the deployments interface reads. */
export function createDeploymentsClient(options: ConnectionOptions) {
  const { api } = connect<paths>(options, { authorization: `Bearer ${options.apiKey}` });
  const one = "/v1/deployments/{deployment_id}" as const;
  const dep = (deployment_id: string) => ({ path: { deployment_id } });
  const thread = (deployment_id: string, thread_id: string) => ({ path: { deployment_id, thread_id } });
  const automation = (deployment_id: string, automation_id: string) => ({ path: { deployment_id, automation_id } });
  return {
    /** Every operation of the deployments interface; a refusal throws `ApiError`. */
    api,
    deployments: {
      create: (body: DeploymentsBody<"createDeployment">, o?: RequestOptions) => ok(api.POST("/v1/deployments", { body, ...init(o) })),
      get: (id: string, o?: RequestOptions) => ok(api.GET(one, { params: dep(id), ...init(o) })),
      list: (query: DeploymentsQuery<"listDeployments"> = {}, o?: RequestOptions) =>
        cursorPages((cursor) => ok(api.GET("/v1/deployments", { params: { query: withCursor(query, cursor) }, ...init(o) }))),
      update: (id: string, body: DeploymentsBody<"updateDeployment">, o?: RequestOptions) => ok(api.PATCH(one, { params: dep(id), body, ...init(o) })),
      delete: (id: string, query: DeploymentsQuery<"deleteDeployment"> = {}, o?: RequestOptions) =>
        ok(api.DELETE(one, { params: { ...dep(id), query }, ...init(o) })),
    },
    threads: {
      create: (id: string, body: DeploymentsBody<"createThread">, o?: RequestOptions) => ok(api.POST(`${one}/threads`, { params: dep(id), body, ...init(o) })),
      get: (id: string, threadId: string, o?: RequestOptions) => ok(api.GET(`${one}/threads/{thread_id}`, { params: thread(id, threadId), ...init(o) })),
      list: (id: string, query: DeploymentsQuery<"listThreads"> = {}, o?: RequestOptions) =>
        cursorPages((cursor) => ok(api.GET(`${one}/threads`, { params: { ...dep(id), query: withCursor(query, cursor) }, ...init(o) }))),
      /** Sends a thread's events (a message starts its turn). */
      send: (id: string, threadId: string, body: DeploymentsBody<"sendThreadEvents">, o?: RequestOptions) =>
        ok(api.POST(`${one}/threads/{thread_id}/events`, { params: thread(id, threadId), body, ...init(o) })),
      events: (id: string, threadId: string, query: DeploymentsQuery<"listThreadEvents"> = {}, o?: RequestOptions) =>
        ok(api.GET(`${one}/threads/{thread_id}/events`, { params: { ...thread(id, threadId), query }, ...init(o) })),
    },
    automations: {
      create: (id: string, body: DeploymentsBody<"createDeploymentAutomation">, o?: RequestOptions) =>
        ok(api.POST(`${one}/automations`, { params: dep(id), body, ...init(o) })),
      get: (id: string, automationId: string, o?: RequestOptions) =>
        ok(api.GET(`${one}/automations/{automation_id}`, { params: automation(id, automationId), ...init(o) })),
      list: (id: string, o?: RequestOptions) => ok(api.GET(`${one}/automations`, { params: dep(id), ...init(o) })),
      update: (id: string, automationId: string, body: DeploymentsBody<"updateDeploymentAutomation">, o?: RequestOptions) =>
        ok(api.PATCH(`${one}/automations/{automation_id}`, { params: automation(id, automationId), body, ...init(o) })),
      delete: (id: string, automationId: string, o?: RequestOptions) =>
        ok(api.DELETE(`${one}/automations/{automation_id}`, { params: automation(id, automationId), ...init(o) })),
      trigger: (id: string, automationId: string, o?: RequestOptions) =>
        ok(api.POST(`${one}/automations/{automation_id}/trigger`, { params: automation(id, automationId), ...init(o) })),
    },
    webhook: {
      get: (id: string, o?: RequestOptions) => ok(api.GET(`${one}/webhook`, { params: dep(id), ...init(o) })),
      put: (id: string, body: DeploymentsBody<"putDeploymentWebhook">, o?: RequestOptions) =>
        ok(api.PUT(`${one}/webhook`, { params: dep(id), body, ...init(o) })),
      delete: (id: string, o?: RequestOptions) => ok(api.DELETE(`${one}/webhook`, { params: dep(id), ...init(o) })),
    },
    secrets: {
      create: (body: DeploymentsBody<"createSecret">, o?: RequestOptions) => ok(api.POST("/v1/secrets", { body, ...init(o) })),
      get: (secretId: string, o?: RequestOptions) => ok(api.GET("/v1/secrets/{secret_id}", { params: { path: { secret_id: secretId } }, ...init(o) })),
      list: (query: DeploymentsQuery<"listSecrets"> = {}, o?: RequestOptions) =>
        cursorPages((cursor) => ok(api.GET("/v1/secrets", { params: { query: withCursor(query, cursor) }, ...init(o) }))),
      update: (secretId: string, body: DeploymentsBody<"updateSecret">, o?: RequestOptions) =>
        ok(api.PATCH("/v1/secrets/{secret_id}", { params: { path: { secret_id: secretId } }, body, ...init(o) })),
      delete: (secretId: string, o?: RequestOptions) => ok(api.DELETE("/v1/secrets/{secret_id}", { params: { path: { secret_id: secretId } }, ...init(o) })),
    },
    credits: {
      get: (o?: RequestOptions) => ok(api.GET("/v1/credits", { ...init(o) })),
    },
  };
}

export type DeploymentsClient = ReturnType<typeof createDeploymentsClient>;
