/** Sign-in: the key is checked with one request, then kept in this tab's sessionStorage. */
import { apiClient } from "../api.js";
import { h } from "../dom.js";
import { describe } from "../problems.js";

export function signInView(onSignedIn: (key: string) => void, notice = ""): HTMLElement {
  const key = h("input", { attrs: { type: "password", name: "api-key", autocomplete: "off", spellcheck: "false", required: "", "aria-label": "API key" } });
  const problem = h("p", { class: "problem", attrs: { role: "alert" } }, notice);
  const submit = h("button", { class: "primary", attrs: { type: "submit" } }, "Sign in");
  // No action and `form-action 'none'` in the page's policy: the form can never be submitted as a
  // navigation (which would put the key in a URL); only this handler reads it.
  const form = h(
    "form",
    {
      class: "view signin",
      attrs: { method: "post" },
      on: {
        submit: (event) => {
          event.preventDefault();
          void check(key.value.trim());
        },
      },
    },
    h("h2", {}, "Sign in"),
    h("p", { class: "note" }, "An API key of your organization. It stays in this tab only, and is forgotten when the tab closes or you sign out."),
    h("label", {}, "API key ", key),
    submit,
    problem,
  );

  async function check(value: string): Promise<void> {
    if (!value) return;
    submit.disabled = true;
    problem.textContent = "";
    let refused = false;
    try {
      await apiClient(value, () => (refused = true)).get("/v1/agents?limit=1");
      key.value = "";
      onSignedIn(value);
    } catch (err) {
      problem.textContent = refused ? "That key was refused." : describe(err);
    } finally {
      submit.disabled = false;
    }
  }
  return form;
}
