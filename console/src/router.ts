/**
 * Views as hash routes (`#/sessions`, `#/sessions/<id>`, `#/agents`, `#/agents/<id>`), so a view survives
 * a reload, can be linked, and back and forward move between views. The hash never reaches the server,
 * and holds ids and filters only, never the key.
 */
export type StatusFilter = "idle" | "running" | "waiting_on_human" | "archived";

export interface SessionFilter {
  status?: StatusFilter;
  agentId?: string;
  subjectId?: string;
}

export type Route = { view: "sessions"; filter: SessionFilter } | { view: "session"; id: string } | { view: "agents" } | { view: "agent"; id: string };

const STATUSES: readonly StatusFilter[] = ["idle", "running", "waiting_on_human", "archived"];
const isStatus = (value: string | null): value is StatusFilter => STATUSES.includes(value as StatusFilter);

export const HOME: Route = { view: "sessions", filter: {} };

/** The route a hash names; an unknown one is the home view. */
export function parseRoute(hash: string): Route {
  const [path = "", search = ""] = hash.replace(/^#/, "").split("?", 2);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "agents") return parts[1] ? { view: "agent", id: parts[1] } : { view: "agents" };
  if (parts[0] === "sessions" && parts[1]) return { view: "session", id: parts[1] };
  if (parts[0] !== "sessions") return HOME;
  const q = new URLSearchParams(search);
  const filter: SessionFilter = {};
  const status = q.get("status");
  if (isStatus(status)) filter.status = status;
  if (q.get("agent")) filter.agentId = q.get("agent")!;
  if (q.get("subject")) filter.subjectId = q.get("subject")!;
  return { view: "sessions", filter };
}

export function href(route: Route): string {
  switch (route.view) {
    case "agents":
      return "#/agents";
    case "agent":
      return `#/agents/${encodeURIComponent(route.id)}`;
    case "session":
      return `#/sessions/${encodeURIComponent(route.id)}`;
    case "sessions": {
      const q = new URLSearchParams();
      const { status, agentId, subjectId } = route.filter;
      if (status) q.set("status", status);
      if (agentId) q.set("agent", agentId);
      if (subjectId) q.set("subject", subjectId);
      const s = q.toString();
      return s ? `#/sessions?${s}` : "#/sessions";
    }
  }
}

/** Opens a view as a new history entry (the shell renders it on `hashchange`). */
export function go(route: Route): void {
  location.hash = href(route);
}
