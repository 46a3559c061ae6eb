/** `client.agents`: agents and their versions, rate limits, subject budgets and vaults. */
import type { Api } from "../api.js";
import { offsetPages } from "../pagination.js";
import { init, ok, type Body, type Query, type RequestOptions } from "../request.js";

export function agentsResource(api: Api) {
  const path = (agentId: string) => ({ path: { agentId } });
  return {
    /** A new agent, at version 1. */
    create: (body: Body<"createAgent">, options?: RequestOptions) => ok(api.POST("/v1/agents", { body, ...init(options) })),
    get: (agentId: string, options?: RequestOptions) => ok(api.GET("/v1/agents/{agentId}", { params: path(agentId), ...init(options) })),
    /** Awaited: the first page; `for await`: every agent. */
    list: (query: Query<"listAgents"> = {}, options?: RequestOptions) =>
      offsetPages((offset) => ok(api.GET("/v1/agents", { params: { query: { ...query, ...(offset !== undefined ? { offset } : {}) } }, ...init(options) }))),
    /** Upserts skills, tools, roles and MCP servers by name; a new version. `expectedVersion` guards against a concurrent change. */
    update: (agentId: string, body: Body<"updateAgent">, options?: RequestOptions) =>
      ok(api.PATCH("/v1/agents/{agentId}", { params: path(agentId), body, ...init(options) })),
    /** Replaces the whole configuration; a new version. */
    replace: (agentId: string, body: Body<"replaceAgent">, options?: RequestOptions) =>
      ok(api.POST("/v1/agents/{agentId}", { params: path(agentId), body, ...init(options) })),
    archive: (agentId: string, options?: RequestOptions) => ok(api.POST("/v1/agents/{agentId}/archive", { params: path(agentId), ...init(options) })),
    delete: (agentId: string, options?: RequestOptions) => ok(api.DELETE("/v1/agents/{agentId}", { params: path(agentId), ...init(options) })),
    updateRateLimits: (agentId: string, body: Body<"updateAgentRateLimits">, options?: RequestOptions) =>
      ok(api.PATCH("/v1/agents/{agentId}/rate-limits", { params: path(agentId), body, ...init(options) })),
    setSubjectBudget: (agentId: string, body: Body<"setAgentSubjectBudget">, options?: RequestOptions) =>
      ok(api.PUT("/v1/agents/{agentId}/subject-budget", { params: path(agentId), body, ...init(options) })),
    subjectSpend: (agentId: string, subjectId: string, options?: RequestOptions) =>
      ok(api.GET("/v1/agents/{agentId}/users/{subjectId}/spend", { params: { path: { agentId, subjectId } }, ...init(options) })),
    versions: {
      list: (agentId: string, query: Query<"listAgentVersions"> = {}, options?: RequestOptions) =>
        offsetPages((offset) =>
          ok(
            api.GET("/v1/agents/{agentId}/versions", {
              params: { ...path(agentId), query: { ...query, ...(offset !== undefined ? { offset } : {}) } },
              ...init(options),
            }),
          ),
        ),
      get: (agentId: string, version: number, options?: RequestOptions) =>
        ok(api.GET("/v1/agents/{agentId}/versions/{version}", { params: { path: { agentId, version } }, ...init(options) })),
    },
    vaults: {
      get: (agentId: string, options?: RequestOptions) => ok(api.GET("/v1/agents/{agentId}/vaults", { params: path(agentId), ...init(options) })),
      replace: (agentId: string, body: Body<"replaceAgentVaults">, options?: RequestOptions) =>
        ok(api.PUT("/v1/agents/{agentId}/vaults", { params: path(agentId), body, ...init(options) })),
    },
  };
}
export type AgentsResource = ReturnType<typeof agentsResource>;
