/** Agents endpoints: parse → service → respond. */
import type Router from "@koa/router";
import type { AgentCreateBody, AgentPatchBody, RateLimits } from "../../domain/agent-config.js";
import type { AgentStatus } from "../../store/agents.js";
import type { Services } from "../context.js";
import { presentAgent, presentOffsetPage, presentVersion } from "../present.js";
import { principalOf, route } from "../route.js";

interface ListQuery {
  limit: number;
  offset: number;
  status?: AgentStatus;
}

export function agentRoutes(router: Router, { agents, validator }: Services): void {
  const tag = "Agents";

  route(router, { method: "post", path: "/v1/agents", summary: "Create an agent and its first version", tag, body: "agent-create.json", status: 201 }, async (ctx) => {
    const body = validator.body<AgentCreateBody>("agent-create.json", ctx.request.body);
    ctx.status = 201;
    ctx.body = presentAgent(await agents.create(principalOf(ctx).orgId, body));
  });

  route(router, { method: "get", path: "/v1/agents", summary: "List agents, newest first", tag, query: "agents-list-query.json", status: 200 }, async (ctx) => {
    const query = validator.query<ListQuery>("agents-list-query.json", ctx.query);
    ctx.body = presentOffsetPage(await agents.list(principalOf(ctx).orgId, query), query, presentAgent);
  });

  route(router, { method: "get", path: "/v1/agents/:agentId", summary: "Get an agent with its latest version", tag, status: 200 }, async (ctx) => {
    ctx.body = presentAgent(await agents.get(principalOf(ctx).orgId, ctx.params.agentId!));
  });

  route(router, { method: "post", path: "/v1/agents/:agentId", summary: "Replace an agent's configuration (new version)", tag, body: "agent-create.json", status: 200 }, async (ctx) => {
    const body = validator.body<AgentCreateBody>("agent-create.json", ctx.request.body);
    ctx.body = presentAgent(await agents.replace(principalOf(ctx).orgId, ctx.params.agentId!, body));
  });

  route(router, { method: "patch", path: "/v1/agents/:agentId", summary: "Update an agent by upsert (new version)", tag, body: "agent-patch.json", status: 200 }, async (ctx) => {
    const body = validator.body<AgentPatchBody>("agent-patch.json", ctx.request.body);
    ctx.body = presentAgent(await agents.patch(principalOf(ctx).orgId, ctx.params.agentId!, body));
  });

  route(router, { method: "delete", path: "/v1/agents/:agentId", summary: "Delete an agent that has no sessions", tag, status: 200 }, async (ctx) => {
    const id = ctx.params.agentId!;
    await agents.delete(principalOf(ctx).orgId, id);
    ctx.body = { object: "agent.deleted", id, deleted: true };
  });

  route(router, { method: "post", path: "/v1/agents/:agentId/archive", summary: "Archive an agent (idempotent)", tag, status: 200 }, async (ctx) => {
    ctx.body = presentAgent(await agents.archive(principalOf(ctx).orgId, ctx.params.agentId!));
  });

  route(router, { method: "patch", path: "/v1/agents/:agentId/rate-limits", summary: "Change an agent's allowances (no new version)", tag, body: "agent-rate-limits-patch.json", status: 200 }, async (ctx) => {
    const body = validator.body<Partial<RateLimits>>("agent-rate-limits-patch.json", ctx.request.body);
    ctx.body = presentAgent(await agents.setRateLimits(principalOf(ctx).orgId, ctx.params.agentId!, body));
  });

  route(router, { method: "get", path: "/v1/agents/:agentId/versions", summary: "List an agent's versions, newest first", tag, query: "versions-list-query.json", status: 200 }, async (ctx) => {
    const query = validator.query<{ limit: number; offset: number }>("versions-list-query.json", ctx.query);
    ctx.body = presentOffsetPage(await agents.listVersions(principalOf(ctx).orgId, ctx.params.agentId!, query), query, presentVersion);
  });

  route(router, { method: "get", path: "/v1/agents/:agentId/versions/:version", summary: "Get one version by number", tag, status: 200 }, async (ctx) => {
    const { version } = validator.query<{ version: number }>("version-path.json", { version: ctx.params.version }, "path");
    ctx.body = presentVersion(await agents.getVersion(principalOf(ctx).orgId, ctx.params.agentId!, version));
  });
}
