/**
 * Sessions, newest first, filtered by status (waiting on a human included), agent and subject; the
 * filters are the route's, so a filtered list can be reloaded and linked. The page shown is read again
 * every few seconds while the tab is visible (see the decisions: the API has no organization-wide
 * stream, and a stream per listed session would cost a connection per row).
 */
import { query, type Api } from "../api.js";
import { h, when } from "../dom.js";
import { cost } from "../format.js";
import { agentLink, type AgentNames } from "../names.js";
import { go, href, type SessionFilter, type StatusFilter } from "../router.js";
import type { Session, SessionList } from "../types.js";
import { pagedTable, type PagedTable } from "./paged-table.js";

export const REFRESH_MS = 5000;

const STATUS_LABELS: Record<StatusFilter | "", string> = {
  "": "Not archived",
  waiting_on_human: "Needs action",
  running: "Running",
  idle: "Idle",
  archived: "Archived",
};

/** The list query of a filter: waiting on a human is its own parameter (the spec refuses it as a status). */
function listQuery(filter: SessionFilter, limit: number, offset: number): string {
  const { status, agentId, subjectId } = filter;
  return query({
    status: status === "waiting_on_human" ? undefined : status,
    waitingOnHuman: status === "waiting_on_human" ? "true" : undefined,
    agentId,
    subjectId,
    limit,
    offset,
  });
}

/** A session table following the list's changes; `dispose` stops the refreshing. */
export function sessionsTable(api: Api, names: AgentNames, filter: SessionFilter, label = "Sessions"): PagedTable & { dispose(): void } {
  const table = pagedTable<Session>({
    label,
    empty: filter.status === "waiting_on_human" ? "Nothing waits on you." : "No sessions.",
    id: (s) => s.id,
    load: (limit, offset) => api.get<SessionList>(`/v1/sessions${listQuery(filter, limit, offset)}`),
    columns: [
      { title: "Title", cell: (s) => h("a", { attrs: { href: href({ view: "session", id: s.id }) } }, s.title || "(untitled)") },
      { title: "Status", cell: (s) => h("span", { class: `badge ${s.status}` }, s.status) },
      { title: "Agent", cell: (s) => agentLink(names, s.agentId) },
      { title: "Subject", cell: (s) => s.subjectId },
      { title: "Usage", cell: (s) => (s.usage ? `${s.usage.total} tokens · ${cost(s.usage)}` : "") },
      { title: "Updated", cell: (s) => when(s.updatedAt) },
    ],
  });
  const timer = setInterval(() => {
    if (document.visibilityState === "visible") void table.refresh();
  }, REFRESH_MS);
  return { ...table, dispose: () => clearInterval(timer) };
}

export function sessionsView(api: Api, names: AgentNames, filter: SessionFilter): { el: HTMLElement; dispose(): void } {
  const status = h(
    "select",
    { attrs: { name: "status", "aria-label": "Status" } },
    ...Object.entries(STATUS_LABELS).map(([value, label]) => h("option", { attrs: { value } }, label)),
  );
  status.value = filter.status ?? "";
  const agent = h("select", { attrs: { name: "agent", "aria-label": "Agent" } }, h("option", { attrs: { value: "" } }, "All agents"));
  const subject = h("input", { attrs: { type: "search", name: "subject", placeholder: "Subject id", "aria-label": "Subject", value: filter.subjectId ?? "" } });
  const apply = () => {
    const next: SessionFilter = {};
    if (status.value) next.status = status.value as StatusFilter;
    if (agent.value) next.agentId = agent.value;
    if (subject.value.trim()) next.subjectId = subject.value.trim();
    go({ view: "sessions", filter: next });
  };
  status.addEventListener("change", apply);
  agent.addEventListener("change", apply);
  subject.addEventListener("change", apply);
  // The picker lists the newest 100 agents; an agent filtered by link is offered even when older.
  void names.list().then(async (agents) => {
    for (const a of agents) agent.append(h("option", { attrs: { value: a.id } }, a.name));
    if (filter.agentId && !agents.some((a) => a.id === filter.agentId))
      agent.append(h("option", { attrs: { value: filter.agentId } }, await names.name(filter.agentId)));
    agent.value = filter.agentId ?? "";
  });
  const table = sessionsTable(api, names, filter);
  const title = filter.status === "waiting_on_human" ? "Needs action" : "Sessions";
  const el = h(
    "section",
    { class: "view sessions" },
    h("h2", {}, title),
    h("div", { class: "filters" }, h("label", {}, "Status ", status), h("label", {}, "Agent ", agent), h("label", {}, "Subject ", subject)),
    table.el,
  );
  return { el, dispose: table.dispose };
}

/**
 * How many sessions wait on a human, as a badge on `link`, read with the lists' period while the tab
 * is visible; "100+" past one page. Returns the stop.
 */
export function watchWaiting(api: Api, link: HTMLElement): () => void {
  const badge = h("span", { class: "badge waiting_on_human count", attrs: { "data-role": "waiting-count" } });
  badge.hidden = true;
  link.append(" ", badge);
  const read = async () => {
    const page = await api.get<SessionList>(`/v1/sessions${listQuery({ status: "waiting_on_human" }, 100, 0)}`).catch(() => null);
    if (!page) return;
    badge.hidden = page.data.length === 0;
    badge.textContent = page.pagination.hasMore ? "100+" : String(page.data.length);
  };
  void read();
  const timer = setInterval(() => {
    if (document.visibilityState === "visible") void read();
  }, REFRESH_MS);
  return () => clearInterval(timer);
}
