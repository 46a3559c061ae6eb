/** One agent: its latest version's configuration, a new session with it, and its sessions. */
import type { Api } from "../api.js";
import { button, fill, h, when } from "../dom.js";
import type { AgentNames } from "../names.js";
import { describe } from "../problems.js";
import { go } from "../router.js";
import type { Agent, Session } from "../types.js";
import { sessionsTable } from "./sessions.js";

function newSessionForm(api: Api, agentId: string): HTMLElement {
  const subject = h("input", { attrs: { type: "text", name: "subject", required: "", placeholder: "user-42", "aria-label": "Subject id" } });
  const title = h("input", { attrs: { type: "text", name: "title", placeholder: "Optional", "aria-label": "Title" } });
  const problem = h("p", { class: "problem", attrs: { role: "alert" } });
  const start = button(
    "Start session",
    async () => {
      if (!subject.value.trim()) return void (problem.textContent = "Name the subject the session is for (a user, team or workspace id).");
      start.disabled = true;
      problem.textContent = "";
      try {
        const body = { agentId, subjectId: subject.value.trim(), ...(title.value.trim() ? { title: title.value.trim() } : {}) };
        const session = await api.post<Session>("/v1/sessions", body);
        go({ view: "session", id: session.id });
      } catch (err) {
        problem.textContent = describe(err);
      } finally {
        start.disabled = false;
      }
    },
    { class: "primary" },
  );
  return h(
    "div",
    { class: "create new-session" },
    h("h3", {}, "New session"),
    h("div", { class: "row" }, h("label", {}, "Subject ", subject), h("label", {}, "Title ", title), start),
    problem,
  );
}

export function agentView(api: Api, names: AgentNames, agentId: string): { el: HTMLElement; dispose(): void } {
  const title = h("h2", {}, "Agent");
  const details = h("div", { class: "agent-details" });
  const problem = h("p", { class: "problem", attrs: { role: "alert" } });
  const sessions = sessionsTable(api, names, { agentId }, "Sessions of this agent");
  const el = h("section", { class: "view agent" }, title, problem, details, newSessionForm(api, agentId), h("h3", {}, "Sessions"), sessions.el);
  api.get<Agent>(`/v1/agents/${encodeURIComponent(agentId)}`).then(
    (agent) => {
      title.textContent = agent.name;
      const v = agent.version;
      fill(
        details,
        h("p", { class: "note" }, `${agent.id} · version ${v.version} · ${agent.status} · updated ${when(agent.updatedAt)}`),
        h("dl", {}, h("dt", {}, "Model"), h("dd", {}, v.modelName), h("dt", {}, "System prompt"), h("dd", {}, h("pre", {}, v.systemPrompt || "(none)"))),
        h("details", {}, h("summary", {}, "Configuration (JSON)"), h("pre", { class: "json" }, JSON.stringify(v, null, 2))),
      );
    },
    (err: unknown) => (problem.textContent = describe(err)),
  );
  return { el, dispose: sessions.dispose };
}
