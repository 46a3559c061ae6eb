/** The console's shell: sign-in, then the agents, sessions and session views, one at a time. */
import { apiClient, type Api } from "./api.js";
import { button, fill, h } from "./dom.js";
import { forgetKey, storedKey, storeKey } from "./key-store.js";
import { agentsView } from "./views/agents.js";
import { sessionView } from "./views/session.js";
import { sessionsView } from "./views/sessions.js";
import { signInView } from "./views/signin.js";

const main = document.querySelector("main")!;
const nav = document.querySelector("nav")!;
let dispose: (() => void) | null = null;

function show(el: HTMLElement, onDispose: (() => void) | null = null): void {
  dispose?.();
  dispose = onDispose;
  fill(main, el);
}

function signOut(notice = ""): void {
  forgetKey();
  fill(nav);
  show(signInView(signedIn, notice));
}

function signedIn(key: string): void {
  storeKey(key);
  const api: Api = apiClient(key, () => signOut("Your key was refused; sign in again."));
  const agents = () => show(agentsView(api, sessions));
  function sessions(agentId?: string): void {
    show(sessionsView(api, agentId, { openSession: session, filter: sessions }));
  }
  function session(id: string): void {
    const view = sessionView(api, id, () => sessions());
    show(view.el, view.dispose);
  }
  fill(
    nav,
    button("Agents", agents),
    button("Sessions", () => sessions()),
    button("Sign out", () => signOut(), { attrs: { "data-role": "sign-out" } }),
  );
  agents();
}

const key = storedKey();
if (key) signedIn(key);
else signOut();
// The shell is static; this marks it as driven by the script (a test waits for it).
document.body.append(h("span", { attrs: { hidden: "", "data-role": "ready" } }));
