/**
 * The console's shell: sign-in, then one view at a time, chosen by the address's hash (router.ts), so
 * a reload, a link and back/forward all land on the same view.
 */
import { apiClient, type Api } from "./api.js";
import { button, fill, h } from "./dom.js";
import { forgetKey, storedKey, storeKey } from "./key-store.js";
import { AgentNames } from "./names.js";
import { href, parseRoute, type Route } from "./router.js";
import { agentView } from "./views/agent.js";
import { agentsView } from "./views/agents.js";
import { sessionView } from "./views/session.js";
import { sessionsView, watchWaiting } from "./views/sessions.js";
import { signInView } from "./views/signin.js";

const main = document.querySelector("main")!;
const nav = document.querySelector("nav")!;
let dispose: (() => void) | null = null;
let onRoute: (() => void) | null = null;
let stopWatching: (() => void) | null = null;

function show(el: HTMLElement, onDispose: (() => void) | null = null): void {
  dispose?.();
  dispose = onDispose;
  fill(main, el);
  scrollTo(0, 0);
}

function signOut(notice = ""): void {
  forgetKey();
  onRoute = null;
  stopWatching?.();
  stopWatching = null;
  fill(nav);
  show(signInView(signedIn, notice));
}

const LINKS: { label: string; route: Route; active(r: Route): boolean }[] = [
  {
    label: "Sessions",
    route: { view: "sessions", filter: {} },
    active: (r) => r.view === "session" || (r.view === "sessions" && r.filter.status !== "waiting_on_human"),
  },
  {
    label: "Needs action",
    route: { view: "sessions", filter: { status: "waiting_on_human" } },
    active: (r) => r.view === "sessions" && r.filter.status === "waiting_on_human",
  },
  { label: "Agents", route: { view: "agents" }, active: (r) => r.view === "agents" || r.view === "agent" },
];

function signedIn(key: string): void {
  storeKey(key);
  const api: Api = apiClient(key, () => signOut("Your key was refused; sign in again."));
  const names = new AgentNames(api);
  const links = LINKS.map((l) => ({ ...l, el: h("a", { attrs: { href: href(l.route) } }, l.label) }));
  stopWatching = watchWaiting(api, links.find((l) => l.label === "Needs action")!.el);
  fill(
    nav,
    ...links.map((l) => l.el),
    button("Sign out", () => signOut(), { attrs: { "data-role": "sign-out" } }),
  );

  onRoute = () => {
    const route = parseRoute(location.hash);
    for (const l of links) {
      if (l.active(route)) l.el.setAttribute("aria-current", "page");
      else l.el.removeAttribute("aria-current");
    }
    if (route.view === "agents") return show(agentsView(api, names));
    const view =
      route.view === "agent"
        ? agentView(api, names, route.id)
        : route.view === "session"
          ? sessionView(api, names, route.id)
          : sessionsView(api, names, route.filter);
    show(view.el, view.dispose);
  };
  onRoute();
}

addEventListener("hashchange", () => onRoute?.());
const key = storedKey();
if (key) signedIn(key);
else signOut();
// The shell is static; this marks it as driven by the script (a test waits for it).
document.body.append(h("span", { attrs: { hidden: "", "data-role": "ready" } }));
