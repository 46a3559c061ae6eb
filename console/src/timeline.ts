/**
 * A session's log on screen. Durable events are kept by id, so an event the stream replays after
 * history (or resends with a new status) replaces its line instead of repeating it. Live-only deltas
 * build a provisional line per turn and kind, dropped when the complete event arrives. Requests
 * (approval, custom tool, question) show their answer form until answered, or until a turn ends
 * without them.
 */
import { h } from "./dom.js";
import { renderEvent, textOf } from "./event-view.js";
import type { Respond } from "./requests.js";
import type { EventEnvelope } from "./types.js";

/** The key that pairs a request with its answer. */
function requestKey(e: EventEnvelope): string | null {
  if (e.type === "agent.approval_request") return `approval:${e.id}`;
  if (e.type === "agent.custom_tool_use") return `custom:${e.id}`;
  if (e.type === "agent.clarify_request") return `clarify:${String(e.payload.request_id)}`;
  return null;
}

function answerKey(e: EventEnvelope): string | null {
  if (e.type === "user.approval_response") return `approval:${String(e.payload.approval_id)}`;
  if (e.type === "user.custom_tool_result") return `custom:${String(e.payload.tool_use_id)}`;
  if (e.type === "user.clarify_result") return `clarify:${String(e.payload.request_id)}`;
  return null;
}

export interface TimelineHooks {
  respond: Respond;
  /** Called for every event, for the view's header (status, title). */
  onEvent(e: EventEnvelope): void;
}

export class Timeline {
  readonly el = h("ol", { class: "timeline", attrs: { "aria-live": "polite" } });
  private readonly events = new Map<string, EventEnvelope>();
  private readonly lines = new Map<string, HTMLLIElement>();
  private readonly drafts = new Map<string, { event: EventEnvelope; text: string; line: HTMLLIElement }>();
  /** Request key → the request's event id, while it waits. */
  private readonly waiting = new Map<string, string>();
  private readonly answered = new Set<string>();

  constructor(private readonly hooks: TimelineHooks) {}

  add(e: EventEnvelope): void {
    // A tool call still being prepared: its id and input are not final, and history never holds it.
    if (e.status === "streaming") return;
    this.hooks.onEvent(e);
    if (e.payload.delta === true) return this.addDelta(e);
    if (e.type === "session.tool_updated") return this.patch(e);
    this.dropDraft(e);
    const answer = answerKey(e);
    if (answer) this.answer(answer);
    const request = requestKey(e);
    if (request && !this.answered.has(request)) this.waiting.set(request, e.id);
    const stop = e.type === "session.status_idle" ? e.payload.stop_reason?.type : undefined;
    this.events.set(e.id, e);
    this.draw(e);
    // A turn that ended no longer waits for anything.
    if (stop && stop !== "requires_action") for (const key of [...this.waiting.keys()]) this.answer(key);
  }

  private draw(e: EventEnvelope): void {
    const key = requestKey(e);
    const line = renderEvent(e, key ? { open: this.waiting.has(key), respond: this.hooks.respond } : null);
    const old = this.lines.get(e.id);
    if (old) old.replaceWith(line);
    else this.el.append(line);
    this.lines.set(e.id, line);
  }

  private answer(key: string): void {
    this.answered.add(key);
    const id = this.waiting.get(key);
    this.waiting.delete(key);
    const request = id && this.events.get(id);
    if (request) this.draw(request);
  }

  private addDelta(e: EventEnvelope): void {
    const key = `${e.type}:${e.turnId ?? ""}`;
    let draft = this.drafts.get(key);
    if (!draft) {
      draft = { event: e, text: "", line: h("li") };
      this.el.append(draft.line);
      this.drafts.set(key, draft);
    }
    draft.text += textOf(e.payload.content, "");
    const line = renderEvent({ ...draft.event, payload: { ...e.payload, content: [{ type: "text", text: draft.text }] } }, null);
    line.classList.add("draft");
    draft.line.replaceWith(line);
    draft.line = line;
  }

  private dropDraft(e: EventEnvelope): void {
    const key = `${e.type}:${e.turnId ?? ""}`;
    this.drafts.get(key)?.line.remove();
    this.drafts.delete(key);
  }

  /** A final custom tool result replaced a running one: the event it names shows the new payload. */
  private patch(e: EventEnvelope): void {
    const target = this.events.get(String(e.payload.event_id));
    const payload = e.payload.payload;
    if (!target || !payload || typeof payload !== "object") return;
    const updated = { ...target, payload: payload as EventEnvelope["payload"] };
    this.events.set(target.id, updated);
    this.draw(updated);
  }
}
