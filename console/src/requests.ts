/** The answers a waiting turn asks for: approve or deny a tool call, return a custom tool's result, answer a question. */
import { button, h } from "./dom.js";
import { describe } from "./problems.js";
import type { ApprovalScope, EventEnvelope, InboundEvent } from "./types.js";

/** Sends one inbound event; rejects with the API's message. */
export type Respond = (event: InboundEvent) => Promise<void>;

/** Runs a send with the form disabled, and shows its failure in the form. */
function sender(form: HTMLElement, problem: HTMLElement) {
  return async (send: () => Promise<void>) => {
    const controls = [
      ...form.querySelectorAll<HTMLButtonElement | HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>("button, input, textarea, select"),
    ];
    controls.forEach((c) => (c.disabled = true));
    problem.textContent = "";
    try {
      await send();
    } catch (err) {
      problem.textContent = describe(err);
      controls.forEach((c) => (c.disabled = false));
    }
  };
}

const SCOPES: Record<ApprovalScope, string> = { once: "this call only", session: "for this session", always: "always, for this agent and subject" };
const isScope = (value: string): value is ApprovalScope => Object.hasOwn(SCOPES, value);

export function approvalForm(request: EventEnvelope, respond: Respond): HTMLElement {
  const scope = h(
    "select",
    { attrs: { name: "scope", "aria-label": "Remember the decision" } },
    ...Object.entries(SCOPES).map(([value, label]) => h("option", { attrs: { value } }, label)),
  );
  const reason = h("input", {
    attrs: { type: "text", name: "reason", maxlength: "2000", placeholder: "Why deny? (optional; the agent reads it)", "aria-label": "Reason for denying" },
  });
  const problem = h("p", { class: "problem", attrs: { role: "alert" } });
  const form = h("div", { class: "answer approval" });
  const run = sender(form, problem);
  const decide = (result: "allow" | "deny") =>
    run(() =>
      respond({
        type: "user.approval_response",
        approval_id: request.id,
        result,
        ...(isScope(scope.value) && scope.value !== "once" ? { scope: scope.value } : {}),
        ...(result === "deny" && reason.value.trim() ? { reason: reason.value.trim() } : {}),
      }),
    );
  form.append(
    button("Approve", () => void decide("allow"), { class: "primary" }),
    scope,
    reason,
    button("Deny", () => void decide("deny")),
    problem,
  );
  return form;
}

export function customToolForm(request: EventEnvelope, respond: Respond): HTMLElement {
  const text = h("textarea", { attrs: { name: "result", rows: "3", maxlength: "20000", placeholder: "What the tool returned", "aria-label": "Tool result" } });
  const failed = h("input", { attrs: { type: "checkbox", name: "failed" } });
  const problem = h("p", { class: "problem", attrs: { role: "alert" } });
  const form = h("div", { class: "answer custom" });
  const run = sender(form, problem);
  const send = () => {
    if (!text.value.trim()) {
      problem.textContent = "Write the tool's result first.";
      return;
    }
    void run(() =>
      respond({
        type: "user.custom_tool_result",
        tool_use_id: request.id,
        content: [{ type: "text", text: text.value }],
        ...(failed.checked ? { is_error: true } : {}),
      }),
    );
  };
  form.append(text, h("label", {}, failed, " the tool failed"), button("Send result", send, { class: "primary" }), problem);
  return form;
}

export function clarifyForm(request: EventEnvelope, respond: Respond): HTMLElement {
  const choices = Array.isArray(request.payload.choices) ? request.payload.choices.map(String) : [];
  const text = h("input", { attrs: { type: "text", name: "answer", maxlength: "20000", placeholder: "Your answer", "aria-label": "Answer" } });
  const problem = h("p", { class: "problem", attrs: { role: "alert" } });
  const form = h("div", { class: "answer clarify" });
  const run = sender(form, problem);
  const answer = (value: string) => void run(() => respond({ type: "user.clarify_result", request_id: String(request.payload.request_id), answer: value }));
  form.append(
    ...choices.map((choice) => button(choice, () => answer(choice), { class: "choice" })),
    text,
    button("Answer", () => answer(text.value), { class: "primary" }),
    button("Skip", () => answer(""), { attrs: { title: "Let the agent decide" } }),
    problem,
  );
  return form;
}
