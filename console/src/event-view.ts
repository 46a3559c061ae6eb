/**
 * One event of the log as an element (a tool call's events make a card of their own: tool-card.ts).
 * Every text a user, a tool or a model wrote is set as text.
 */
import { h, when, type Child } from "./dom.js";
import { usageLine } from "./format.js";
import { href } from "./router.js";
import { clarifyForm, type Respond } from "./requests.js";
import type { EventEnvelope, Payload } from "./types.js";

/** Whether a request still waits for its answer, and how to send one. */
export interface RequestState {
  open: boolean;
  respond: Respond;
}

/** A message's text blocks, one per line; an agent's (`joined: ""`) are one text the service cut at 20,000 characters. */
export function textOf(content: unknown, joined = "\n"): string {
  if (!Array.isArray(content)) return "";
  return content
    .filter((b): b is { type: "text"; text: string } => !!b && typeof b === "object" && (b as { type?: unknown }).type === "text")
    .map((b) => b.text)
    .join(joined);
}

const str = (v: unknown) => (typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v));
const json = (v: unknown) => h("pre", { class: "json" }, JSON.stringify(v, null, 2));
const text = (v: string) => h("div", { class: "text" }, v);

function stopReason(p: Payload): string {
  const reason = p.stop_reason;
  if (reason?.type === "error") return `ended with an error: ${reason.message}`;
  if (reason?.type === "requires_action") return "waiting for you";
  if (reason?.type === "budget_exceeded") return `the ${reason.scope} budget of $${reason.limit_usd} is spent`;
  return "turn ended";
}

interface Shape {
  label: string;
  kind: string;
  body: Child[];
}

/** What an event says; `form`: the answer it waits for, while it waits. */
function shape(e: EventEnvelope, form: () => HTMLElement | null): Shape {
  const p = e.payload;
  switch (e.type) {
    case "user.message": {
      const attachments = Array.isArray(p.attachments) ? p.attachments.length : 0;
      return { label: "You", kind: "user", body: [text(textOf(p.content)), attachments ? h("p", { class: "note" }, `${attachments} attachment(s)`) : null] };
    }
    case "agent.message":
      return { label: "Agent", kind: "agent", body: [text(textOf(p.content, ""))] };
    case "agent.thinking":
      return { label: "Thinking", kind: "thinking", body: [text(textOf(p.content, ""))] };
    case "agent.clarify_request": {
      const choices = Array.isArray(p.choices) && p.choices.length ? h("p", { class: "note" }, `Choices: ${p.choices.map(str).join(" · ")}`) : null;
      return { label: "Question", kind: "request", body: [text(str(p.question)), choices, form()] };
    }
    case "user.clarify_result":
      return { label: "Your answer", kind: "user", body: [text(str(p.answer) || "(skipped: the agent decides)")] };
    case "user.steer":
      return { label: "Steer", kind: "user", body: [text(str(p.message))] };
    case "user.interrupt":
      return { label: "Interrupt", kind: "user small", body: [p.message ? text(str(p.message)) : null] };
    case "session.status_running":
      return { label: "Running", kind: "status", body: [] };
    case "session.status_idle":
      return {
        label: `Idle: ${stopReason(p)}`,
        kind: p.stop_reason?.type === "error" ? "status error" : "status",
        body: [e.usage ? h("p", { class: "note usage", attrs: { "data-role": "turn-usage" } }, usageLine(e.usage, "turn")) : null],
      };
    case "session.title_updated":
      return { label: `Title: ${str(p.title)}`, kind: "status", body: [] };
    case "session.compacted":
      return { label: "Earlier conversation compacted", kind: "status", body: [] };
    case "agent.thread_message_sent":
    case "agent.thread_message_received":
      return {
        label: `${e.type === "agent.thread_message_sent" ? "Delegated to" : "Answer from"} thread`,
        kind: "tool",
        body: [
          h("p", { class: "note" }, h("a", { attrs: { href: href({ view: "session", id: str(p.thread_id) }), "data-role": "thread-link" } }, str(p.thread_id))),
          text(textOf(p.content) || str(p.content)),
        ],
      };
    default:
      return { label: e.type, kind: "other", body: [json(p)] };
  }
}

function requestForm(e: EventEnvelope, state: RequestState): HTMLElement {
  return state.open ? clarifyForm(e, state.respond) : h("p", { class: "note" }, "No longer waiting.");
}

export function renderEvent(e: EventEnvelope, request: RequestState | null): HTMLLIElement {
  const { label, kind, body } = shape(e, () => (request ? requestForm(e, request) : null));
  const status = e.status === "queued" || e.status === "running" ? h("span", { class: "badge" }, e.status) : null;
  return h(
    "li",
    { class: `event ${kind}`, attrs: { "data-type": e.type, "data-id": e.id } },
    h("div", { class: "meta" }, h("span", { class: "label" }, label), status, h("time", { attrs: { datetime: e.createdAt } }, when(e.createdAt))),
    ...body,
  );
}
