/** `client.automations`: a prompt on a schedule for one subject of an agent, each occurrence in a fresh session. */
import type { Api } from "../api.js";
import { offsetPages } from "../pagination.js";
import { init, ok, type Body, type Query, type RequestOptions } from "../request.js";

/** Which automation: its agent, its subject, its id. */
export interface AutomationRef {
  agentId: string;
  subjectId: string;
  automationId: string;
}

const withOffset = <Q extends object>(query: Q, offset: number | undefined) => ({ ...query, ...(offset !== undefined ? { offset } : {}) });

export function automationsResource(api: Api) {
  const one = "/v1/agents/{agentId}/users/{subjectId}/automations/{automationId}" as const;
  return {
    create: (agentId: string, subjectId: string, body: Body<"createAutomation">, options?: RequestOptions) =>
      ok(api.POST("/v1/agents/{agentId}/users/{subjectId}/automations", { params: { path: { agentId, subjectId } }, body, ...init(options) })),
    get: (ref: AutomationRef, options?: RequestOptions) => ok(api.GET(one, { params: { path: ref }, ...init(options) })),
    /** An agent's automations, or one subject's of it (`subjectId`). */
    list: (agentId: string, query: Query<"listAgentAutomations"> & { subjectId?: string } = {}, options?: RequestOptions) => {
      const { subjectId, ...rest } = query;
      return offsetPages((offset) =>
        subjectId === undefined
          ? ok(api.GET("/v1/agents/{agentId}/automations", { params: { path: { agentId }, query: withOffset(rest, offset) }, ...init(options) }))
          : ok(
              api.GET("/v1/agents/{agentId}/users/{subjectId}/automations", {
                params: { path: { agentId, subjectId }, query: withOffset(rest, offset) },
                ...init(options),
              }),
            ),
      );
    },
    update: (ref: AutomationRef, body: Body<"updateAutomation">, options?: RequestOptions) =>
      ok(api.PATCH(one, { params: { path: ref }, body, ...init(options) })),
    delete: (ref: AutomationRef, options?: RequestOptions) => ok(api.DELETE(one, { params: { path: ref }, ...init(options) })),
    pause: (ref: AutomationRef, options?: RequestOptions) => ok(api.POST(`${one}/pause`, { params: { path: ref }, ...init(options) })),
    resume: (ref: AutomationRef, options?: RequestOptions) => ok(api.POST(`${one}/resume`, { params: { path: ref }, ...init(options) })),
    /** Runs it now, once, beside its schedule. */
    trigger: (ref: AutomationRef, options?: RequestOptions) => ok(api.POST(`${one}/trigger`, { params: { path: ref }, ...init(options) })),
    sessions: (ref: AutomationRef, query: Query<"listAutomationSessions"> = {}, options?: RequestOptions) =>
      offsetPages((offset) => ok(api.GET(`${one}/sessions`, { params: { path: ref, query: withOffset(query, offset) }, ...init(options) }))),
    runs: (ref: AutomationRef, query: Query<"listAutomationRuns"> = {}, options?: RequestOptions) =>
      offsetPages((offset) => ok(api.GET(`${one}/runs`, { params: { path: ref, query: withOffset(query, offset) }, ...init(options) }))),
  };
}
export type AutomationsResource = ReturnType<typeof automationsResource>;
