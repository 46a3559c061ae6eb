/**
 * The message box of a session, following its status. Idle: Send starts a turn. While a turn runs or
 * waits on a human, a plain send would be refused (`409 invalid_state`), so Send is disabled and the
 * box offers what the spec allows then: queue the message (`delivery: when_idle`, it starts its own
 * turn when this one ends), steer the running turn (`user.steer`, read at its next model call), or
 * interrupt it. Archived: nothing is taken.
 */
import { button, h } from "../dom.js";
import { describe } from "../problems.js";
import type { EventsPost, InboundEvent, Session } from "../types.js";

type Post = (events: InboundEvent[], delivery?: EventsPost["delivery"]) => Promise<void>;

export interface Composer {
  el: HTMLElement;
  setStatus(status: Session["status"]): void;
}

export function composer(post: Post): Composer {
  const text = h("textarea", {
    attrs: { name: "message", rows: "3", maxlength: "20000", placeholder: "Write a message (Ctrl+Enter sends)", "aria-label": "Message" },
  });
  const problem = h("p", { class: "problem", attrs: { role: "alert" } });
  const hint = h("p", { class: "note", attrs: { "data-role": "composer-hint" } });
  let status: Session["status"] = "idle";

  const run = async (send: () => Promise<void>, clear = true) => {
    problem.textContent = "";
    try {
      await send();
      if (clear) text.value = "";
    } catch (err) {
      problem.textContent = describe(err);
    }
  };
  const message = (): InboundEvent[] | null => (text.value.trim() ? [{ type: "user.message", content: [{ type: "text", text: text.value }] }] : null);
  const sendNow = () => {
    const events = message();
    if (events) void run(() => post(events));
  };
  const queueIt = () => {
    const events = message();
    if (events) void run(() => post(events, "when_idle"));
  };
  const steerIt = () => {
    if (text.value.trim()) void run(() => post([{ type: "user.steer", message: text.value }]));
  };
  const send = button("Send", sendNow, { class: "primary" });
  const queue = button("Queue for when the turn ends", queueIt, { attrs: { title: "Starts its own turn when the running one ends" } });
  const steer = button("Steer this turn", steerIt, { attrs: { title: "Guidance the running turn reads at its next model call" } });
  const interrupt = button("Interrupt", () => void run(() => post([{ type: "user.interrupt" }]), false));

  text.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || !(e.ctrlKey || e.metaKey)) return;
    if (status === "idle") sendNow();
    else if (status !== "archived") queueIt();
  });

  function setStatus(next: Session["status"]): void {
    status = next;
    const busy = next === "running" || next === "waiting_on_human";
    send.disabled = next !== "idle";
    send.title = busy ? "A turn is running: queue the message, or steer the turn" : "";
    queue.hidden = steer.hidden = !busy;
    queue.className = busy ? "primary" : "";
    send.className = busy ? "" : "primary";
    interrupt.disabled = !busy;
    text.disabled = next === "archived";
    text.placeholder = busy ? "Write a message to queue, or to steer the turn (Ctrl+Enter queues)" : "Write a message (Ctrl+Enter sends)";
    hint.textContent =
      next === "archived"
        ? "This session is archived: it takes no more messages."
        : next === "waiting_on_human"
          ? "The turn waits for your answer above. A message can be queued for when it ends."
          : busy
            ? "A turn is running. Queue your message to start a turn when it ends (Ctrl+Enter queues), or steer the running turn."
            : "";
  }
  setStatus("idle");
  return {
    el: h("div", { class: "composer" }, text, h("div", { class: "row" }, send, queue, steer, interrupt), hint, problem),
    setStatus,
  };
}
