/** The organization's agents, newest first, and a new agent made from its JSON body (`POST /v1/agents`). */
import { query, type Api } from "../api.js";
import { button, h, when } from "../dom.js";
import type { AgentNames } from "../names.js";
import { describe } from "../problems.js";
import { go, href } from "../router.js";
import type { Agent, AgentList } from "../types.js";
import { pagedTable } from "./paged-table.js";

const TEMPLATE = { name: "Support bot", modelName: "mock/echo", systemPrompt: "You help customers.", skills: [], tools: [] };

/** The JSON text parsed, or a sentence saying where it does not parse. */
export function parseJson(text: string): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { problem: `That is not JSON: ${err instanceof Error ? err.message : String(err)}.` };
  }
}

function newAgentForm(api: Api, names: AgentNames): HTMLElement {
  const body = h("textarea", { attrs: { name: "agent-json", rows: "10", spellcheck: "false", "aria-label": "Agent JSON" } });
  body.value = JSON.stringify(TEMPLATE, null, 2);
  const problem = h("p", { class: "problem", attrs: { role: "alert" } });
  const create = button(
    "Create agent",
    async () => {
      const parsed = parseJson(body.value);
      if ("problem" in parsed) return void (problem.textContent = parsed.problem);
      create.disabled = true;
      problem.textContent = "";
      try {
        const agent = await api.post<Agent>("/v1/agents", parsed.value);
        names.forget();
        go({ view: "agent", id: agent.id });
      } catch (err) {
        problem.textContent = describe(err);
      } finally {
        create.disabled = false;
      }
    },
    { class: "primary" },
  );
  return h(
    "details",
    { class: "create" },
    h("summary", {}, "New agent"),
    h(
      "p",
      { class: "note" },
      "The body of POST /v1/agents: name, modelName, systemPrompt, skills and tools (an empty list: the built-in toolset, asking before each use).",
    ),
    body,
    h("div", { class: "row" }, create),
    problem,
  );
}

export function agentsView(api: Api, names: AgentNames): HTMLElement {
  const table = pagedTable<Agent>({
    label: "Agents",
    empty: "No agents yet.",
    id: (a) => a.id,
    load: (limit, offset) => api.get<AgentList>(`/v1/agents${query({ limit, offset })}`),
    columns: [
      { title: "Name", cell: (a) => h("a", { attrs: { href: href({ view: "agent", id: a.id }) } }, a.name) },
      { title: "Model", cell: (a) => a.version.modelName },
      { title: "Version", cell: (a) => a.version.version },
      { title: "Status", cell: (a) => h("span", { class: `badge ${a.status}` }, a.status) },
      { title: "Updated", cell: (a) => when(a.updatedAt) },
    ],
  });
  return h("section", { class: "view agents" }, h("h2", {}, "Agents"), newAgentForm(api, names), table.el);
}
