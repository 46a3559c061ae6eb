/** Resource → response body. The only place that decides what a client sees (skill content never). */
import type { SessionView } from "../services/sessions.js";
import type { AgentDoc, Page, VersionDoc } from "../store/agents.js";

export function presentVersion(v: VersionDoc) {
  return {
    id: v._id,
    version: v.version,
    name: v.name,
    modelName: v.modelName,
    systemPrompt: v.systemPrompt,
    skills: v.skills.map((s) => s.name),
    tools: v.tools,
    roles: v.roles,
    mcpServers: v.mcpServers,
    metadata: v.metadata,
    createdAt: v.createdAt.toISOString(),
  };
}

export function presentAgent(a: AgentDoc) {
  return {
    id: a._id,
    name: a.current.name,
    status: a.status,
    metadata: a.current.metadata,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
    rateLimits: a.rateLimits,
    version: presentVersion(a.current),
    tools: a.current.tools,
  };
}

export function presentOffsetPage<T, R>(page: Page<T>, opts: { limit: number; offset: number }, present: (item: T) => R) {
  return {
    object: "list" as const,
    data: page.items.map(present),
    pagination: { limit: opts.limit, offset: opts.offset, hasMore: page.hasMore },
  };
}

export function presentSession({ doc, status, usage }: SessionView) {
  const out: Record<string, unknown> = {
    id: doc._id,
    agentId: doc.agentId,
    agentVersion: doc.agentVersion,
    subjectId: doc.subjectId,
    status,
    role: doc.role,
    title: doc.title,
    yoloMode: doc.yoloMode,
    metadata: doc.metadata,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
  if (usage) out.usage = usage;
  return out;
}
