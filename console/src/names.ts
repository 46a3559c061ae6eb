/**
 * Agents' names by id, for every view that shows an agent: the newest 100 are read once, any other
 * agent when first shown (`GET /v1/agents/{id}`). An agent that cannot be read shows its id.
 */
import { query, type Api } from "./api.js";
import { h } from "./dom.js";
import { href } from "./router.js";
import type { Agent, AgentList } from "./types.js";

export class AgentNames {
  private readonly names = new Map<string, Promise<string>>();
  private newest: Promise<Agent[]> | undefined;

  constructor(private readonly api: Api) {}

  /** The newest agents (one page of 100), for pickers. */
  list(): Promise<Agent[]> {
    this.newest ??= this.api.get<AgentList>(`/v1/agents${query({ limit: 100 })}`).then((page) => {
      for (const a of page.data) this.names.set(a.id, Promise.resolve(a.name));
      return page.data;
    });
    return this.newest;
  }

  async name(id: string): Promise<string> {
    await this.list().catch(() => undefined);
    let name = this.names.get(id);
    if (!name) {
      name = this.api.get<Agent>(`/v1/agents/${encodeURIComponent(id)}`).then(
        (a) => a.name,
        () => id,
      );
      this.names.set(id, name);
    }
    return name;
  }

  /** A name or a new agent's: the next `list()` reads the agents again. */
  forget(): void {
    this.newest = undefined;
    this.names.clear();
  }
}

/** A link to the agent's view, showing its name once known (its id only when the agent cannot be read). */
export function agentLink(names: AgentNames, id: string): HTMLAnchorElement {
  const link = h("a", { class: "agent-name", attrs: { href: href({ view: "agent", id }), title: id } }, "…");
  void names.name(id).then((name) => (link.textContent = name));
  return link;
}
