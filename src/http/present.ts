/** Resource → response body. The only place that decides what a client sees (skill content never). */
import { stateOf, type RunSummary } from "../automations/domain/automations.js";
import { describeSchedule, normalizedSchedule } from "../automations/domain/schedule.js";
import type { SessionView } from "../sessions/sessions.js";
import type { AutomationDoc } from "../automations/store/automations.js";
import type { RunDoc } from "../automations/store/automation-runs.js";
import type { AgentDoc, Page, VersionDoc } from "../agents/store/agents.js";
import type { CredentialAuth, CredentialDoc } from "../vaults/store/vault-credentials.js";
import type { VaultDoc } from "../vaults/store/vaults.js";
import { spentUsd } from "../sessions/domain/budgets.js";
import { callableAgentsOf } from "../agents/domain/agent-config.js";

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
    callableAgents: callableAgentsOf(v),
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
    subjectBudget: { limitUsd: a.subjectBudgetUsd ?? null },
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
    budget: { limitUsd: doc.budgetUsd ?? null, spentUsd: spentUsd(usage) },
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
  if (usage) out.usage = usage;
  if (doc.forkedFrom) out.forkedFrom = doc.forkedFrom;
  if (doc.thread) out.parent = { sessionId: doc.thread.parentSessionId, toolUseId: doc.thread.toolUseId, depth: doc.thread.depth };
  return out;
}

export function presentVault(v: VaultDoc) {
  return {
    id: v._id,
    type: "vault" as const,
    displayName: v.displayName,
    metadata: v.metadata,
    archivedAt: v.archivedAt?.toISOString() ?? null,
    createdAt: v.createdAt.toISOString(),
    updatedAt: v.updatedAt.toISOString(),
  };
}

/** A credential's `auth` is built field by field from what is shown: nothing stored beside it can leak. */
function presentAuth(auth: CredentialAuth) {
  if (auth.type === "static_bearer") return { type: auth.type, mcpServerUrl: auth.mcpServerUrl };
  const refresh = auth.refresh && {
    tokenEndpoint: auth.refresh.tokenEndpoint,
    clientId: auth.refresh.clientId,
    tokenEndpointAuth: { type: auth.refresh.tokenEndpointAuth.type },
  };
  return { type: auth.type, mcpServerUrl: auth.mcpServerUrl, expiresAt: auth.expiresAt.toISOString(), refresh };
}

export function presentCredential(c: CredentialDoc) {
  return {
    id: c._id,
    type: "vault_credential" as const,
    vaultId: c.vaultId,
    displayName: c.displayName,
    metadata: c.metadata,
    auth: presentAuth(c.auth),
    archivedAt: c.archivedAt?.toISOString() ?? null,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

const presentRunSummary = (r: RunSummary) => ({ id: r.id, at: r.at.toISOString(), status: r.status, sessionId: r.sessionId, error: r.error });

export function presentAutomation(a: AutomationDoc) {
  return {
    id: a._id,
    type: "automation" as const,
    agentId: a.agentId,
    subjectId: a.subjectId,
    name: a.name,
    prompt: a.prompt,
    schedule: normalizedSchedule(a.schedule),
    timezone: a.schedule.kind === "cron" ? a.schedule.timezone : "UTC",
    scheduleDisplay: describeSchedule(a.schedule),
    skills: a.skills,
    repeat: a.repeat,
    enabled: a.enabled,
    state: stateOf(a),
    nextRunAt: isoOrNull(a.nextRunAt),
    runCount: a.runCount,
    failedRunCount: a.failedRunCount,
    completedOccurrences: a.completedOccurrences,
    lastRun: a.lastRun && presentRunSummary(a.lastRun),
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

export function presentRun(r: RunDoc) {
  return {
    id: r._id,
    type: "automation_run" as const,
    automationId: r.automationId,
    trigger: r.trigger,
    scheduledFor: isoOrNull(r.scheduledFor),
    status: r.status,
    sessionId: r.sessionCreated ? r.sessionId : null,
    error: r.error,
    createdAt: r.createdAt.toISOString(),
    finishedAt: isoOrNull(r.finishedAt),
  };
}

/** A page of durable events after a sequence: `pagination.after` is the last sequence on it (or the one asked for). */
export function presentEventPage(page: { data: { sequence: number }[]; hasMore: boolean }, after: number, limit: number) {
  const last = page.data[page.data.length - 1];
  return { object: "list" as const, data: page.data, pagination: { after: last ? last.sequence : after, hasMore: page.hasMore, limit } };
}
