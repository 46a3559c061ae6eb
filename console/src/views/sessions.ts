/** Sessions, newest first, filtered by agent; a session opens its conversation. */
import { query, type Api } from "../api.js";
import { button, h, when } from "../dom.js";
import type { AgentList, Session, SessionList } from "../types.js";
import { pagedTable } from "./paged-table.js";

export function sessionsView(
  api: Api,
  agentId: string | undefined,
  nav: { openSession(id: string): void; filter(agentId: string | undefined): void },
): HTMLElement {
  const filter = h(
    "select",
    { attrs: { name: "agent", "aria-label": "Agent" }, on: { change: () => nav.filter(filter.value || undefined) } },
    h("option", { attrs: { value: "" } }, "All agents"),
  );
  const names = new Map<string, string>();
  // The filter lists the newest 100 agents (one page); an agent opened from the agents list is selected even when older.
  void api.get<AgentList>(`/v1/agents${query({ limit: 100 })}`).then((page) => {
    for (const a of page.data) {
      names.set(a.id, a.name);
      filter.append(h("option", { attrs: { value: a.id } }, a.name));
    }
    if (agentId && !names.has(agentId)) filter.append(h("option", { attrs: { value: agentId } }, agentId));
    filter.value = agentId ?? "";
  });
  const table = pagedTable<Session>({
    label: "Sessions",
    empty: "No sessions.",
    load: (limit, offset) => api.get<SessionList>(`/v1/sessions${query({ agentId, limit, offset })}`),
    columns: [
      { title: "Title", cell: (s) => button(s.title || "(untitled)", () => nav.openSession(s.id), { class: "link" }) },
      { title: "Status", cell: (s) => h("span", { class: `badge ${s.status}` }, s.status) },
      { title: "Subject", cell: (s) => s.subjectId },
      { title: "Agent", cell: (s) => h("code", {}, s.agentId) },
      { title: "Updated", cell: (s) => when(s.updatedAt) },
    ],
  });
  return h("section", { class: "view sessions" }, h("h2", {}, "Sessions"), h("label", { class: "filter" }, "Agent ", filter), table);
}
