/** The organization's agents, newest first; an agent opens its sessions. */
import { query, type Api } from "../api.js";
import { button, h, when } from "../dom.js";
import type { Agent, AgentList } from "../types.js";
import { pagedTable } from "./paged-table.js";

export function agentsView(api: Api, openSessions: (agentId: string) => void): HTMLElement {
  const table = pagedTable<Agent>({
    label: "Agents",
    empty: "No agents yet.",
    load: (limit, offset) => api.get<AgentList>(`/v1/agents${query({ limit, offset })}`),
    columns: [
      { title: "Name", cell: (a) => button(a.name, () => openSessions(a.id), { class: "link", attrs: { title: "Show its sessions" } }) },
      { title: "Model", cell: (a) => a.version.modelName },
      { title: "Version", cell: (a) => a.version.version },
      { title: "Status", cell: (a) => h("span", { class: `badge ${a.status}` }, a.status) },
      { title: "Updated", cell: (a) => when(a.updatedAt) },
      { title: "Id", cell: (a) => h("code", {}, a.id) },
    ],
  });
  return h("section", { class: "view agents" }, h("h2", {}, "Agents"), table);
}
