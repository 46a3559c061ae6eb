/**
 * A session's log on screen. Durable events are kept by id, so an event the stream replays after
 * history (or resends with a new status) replaces its line instead of repeating it. A tool call's
 * events make one card (tool-card.ts). Live-only deltas build a provisional line per turn and kind,
 * dropped when the complete event arrives. Requests (approval, custom tool, question) show their
 * answer form until answered, or until a turn ends without them.
 */
import { h } from "./dom.js";
import { renderEvent, textOf } from "./event-view.js";
import type { Respond } from "./requests.js";
import { callIdOf, fileEvent, renderCall, type Call } from "./tool-card.js";
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
  /** Lines by event id, and tool cards by `call:<id>`. */
  private readonly lines = new Map<string, HTMLLIElement>();
  private readonly drafts = new Map<string, { event: EventEnvelope; text: string; line: HTMLLIElement }>();
  /** Request key → the request's event id, while it waits. */
  private readonly waiting = new Map<string, string>();
  private readonly answered = new Set<string>();
  private readonly calls = new Map<string, Call>();
  /** Event id → its call's id. */
  private readonly callOf = new Map<string, string>();
  /** Approval request id → its call's id (an approval response names the request). */
  private readonly approvals = new Map<string, string>();

  constructor(private readonly hooks: TimelineHooks) {}

  add(e: EventEnvelope): void {
    // A tool call still being prepared: its id and input are not final, and history never holds it.
    if (e.status === "streaming") return;
    this.hooks.onEvent(e);
    if (e.payload.delta === true) return this.addDelta(e);
    if (e.type === "session.tool_updated") return this.patch(e);
    this.dropDraft(e);
    const answer = answerKey(e);
    const request = requestKey(e);
    if (request && !this.answered.has(request)) this.waiting.set(request, e.id);
    this.events.set(e.id, e);
    this.file(e);
    if (answer) this.answer(answer);
    this.draw(e.id);
    const stop = e.type === "session.status_idle" ? e.payload.stop_reason?.type : undefined;
    // A turn that ended no longer waits for anything, and its calls without a result will have none.
    if (stop && stop !== "requires_action") {
      for (const key of [...this.waiting.keys()]) this.answer(key);
      for (const call of this.calls.values()) if (!call.result && !call.ended) this.endCall(call);
    }
  }

  private file(e: EventEnvelope): void {
    const id = callIdOf(e, this.approvals);
    if (!id) return;
    let call = this.calls.get(id);
    if (!call) this.calls.set(id, (call = { id, ended: false }));
    if (e.type === "agent.approval_request") this.approvals.set(e.id, id);
    fileEvent(call, e);
    this.callOf.set(e.id, id);
  }

  private endCall(call: Call): void {
    call.ended = true;
    this.drawCall(call);
  }

  private draw(eventId: string): void {
    const callId = this.callOf.get(eventId);
    if (callId) return this.drawCall(this.calls.get(callId)!);
    const e = this.events.get(eventId);
    if (!e) return;
    const key = requestKey(e);
    this.place(e.id, renderEvent(e, key ? { open: this.waiting.has(key), respond: this.hooks.respond } : null));
  }

  private drawCall(call: Call): void {
    const open = {
      approval: !!call.approval && this.waiting.has(`approval:${call.approval.id}`),
      custom: call.use?.type === "agent.custom_tool_use" && this.waiting.has(`custom:${call.use.id}`),
    };
    this.place(`call:${call.id}`, renderCall(call, open, this.hooks.respond));
  }

  private place(key: string, line: HTMLLIElement): void {
    const old = this.lines.get(key);
    if (old) old.replaceWith(line);
    else this.el.append(line);
    this.lines.set(key, line);
  }

  private answer(key: string): void {
    this.answered.add(key);
    const id = this.waiting.get(key);
    this.waiting.delete(key);
    if (id) this.draw(id);
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
    this.file(updated);
    this.draw(updated.id);
  }
}
