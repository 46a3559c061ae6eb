/**
 * One session: its history read page by page, then its live stream from the last sequence read, and
 * a composer. The API pages history oldest first, so every page is read before going live (a stream
 * opened earlier would replay the same events unpaged).
 */
import type { Api } from "../api.js";
import { button, h } from "../dom.js";
import { openStream, type LiveStream, type StreamState } from "../stream.js";
import { Timeline } from "../timeline.js";
import type { EventList, EventsAccepted, EventsPost, InboundEvent, Session } from "../types.js";

export interface SessionView {
  el: HTMLElement;
  dispose(): void;
}

const STATES: Record<StreamState, string> = { connecting: "connecting…", live: "live", reconnecting: "reconnecting…", closed: "not live" };

export function sessionView(api: Api, sessionId: string, back: () => void): SessionView {
  const path = `/v1/sessions/${encodeURIComponent(sessionId)}`;
  const title = h("h2", {}, "Session");
  const status = h("span", { class: "badge", attrs: { "data-role": "session-status" } });
  const live = h("span", { class: "badge stream", attrs: { "data-role": "stream-state", title: "" } }, STATES.connecting);
  const ids = h("p", { class: "note" });
  const problem = h("p", { class: "problem", attrs: { role: "alert" } });
  let stream: LiveStream | null = null;
  let disposed = false;

  const setStatus = (s: string) => {
    status.textContent = s;
    status.className = `badge ${s}`;
  };
  const post = async (events: InboundEvent[], delivery?: EventsPost["delivery"]) => {
    const body: EventsPost = { events, ...(delivery ? { delivery } : {}) };
    const accepted = await api.post<EventsAccepted>(`${path}/events`, body);
    // The stream brings the same events; the timeline keeps one line per id.
    accepted.data.forEach((e) => timeline.add(e));
  };

  const timeline = new Timeline({
    respond: (event) => post([event]),
    onEvent(e) {
      // History tells what was; the session record read first tells what is (a title set later, an archive).
      if (!stream) return;
      if (e.type === "session.status_running") setStatus("running");
      if (e.type === "session.status_idle") setStatus(e.payload.stop_reason?.type === "requires_action" ? "waiting_on_human" : "idle");
      if (e.type === "session.title_updated" && typeof e.payload.title === "string") title.textContent = e.payload.title;
    },
  });

  const composer = messageComposer(post);
  const el = h(
    "section",
    { class: "view session" },
    h("div", { class: "toolbar" }, button("← Sessions", back, { class: "link" }), status, live),
    title,
    ids,
    problem,
    timeline.el,
    composer,
  );

  async function load(): Promise<void> {
    const session = await api.get<Session>(path);
    title.textContent = session.title || "(untitled)";
    ids.textContent = `${session.id} · agent ${session.agentId} · subject ${session.subjectId}`;
    setStatus(session.status);
    let after = 0;
    for (;;) {
      const page = await api.get<EventList>(`${path}/events?after=${after}&limit=100`);
      if (disposed) return;
      page.data.forEach((e) => timeline.add(e));
      after = page.pagination.after;
      if (!page.pagination.hasMore) break;
    }
    stream = openStream(api, sessionId, after, {
      onEvent: (e) => timeline.add(e),
      onState(state, detail) {
        live.textContent = STATES[state];
        live.className = `badge stream ${state}`;
        live.title = detail ?? "";
      },
    });
  }
  load().catch((err: unknown) => (problem.textContent = err instanceof Error ? err.message : String(err)));

  return {
    el,
    dispose() {
      disposed = true;
      stream?.close();
    },
  };
}

function messageComposer(post: (events: InboundEvent[], delivery?: EventsPost["delivery"]) => Promise<void>): HTMLElement {
  const text = h("textarea", {
    attrs: { name: "message", rows: "3", maxlength: "20000", placeholder: "Write a message (Ctrl+Enter sends)", "aria-label": "Message" },
  });
  const queue = h("input", { attrs: { type: "checkbox", name: "when_idle" } });
  const problem = h("p", { class: "problem", attrs: { role: "alert" } });
  const send = async () => {
    if (!text.value.trim()) return;
    problem.textContent = "";
    try {
      await post([{ type: "user.message", content: [{ type: "text", text: text.value }] }], queue.checked ? "when_idle" : undefined);
      text.value = "";
    } catch (err) {
      problem.textContent = err instanceof Error ? err.message : String(err);
    }
  };
  const interrupt = async () => {
    problem.textContent = "";
    await post([{ type: "user.interrupt" }]).catch((err: unknown) => (problem.textContent = err instanceof Error ? err.message : String(err)));
  };
  text.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void send();
  });
  return h(
    "div",
    { class: "composer" },
    text,
    h(
      "div",
      { class: "row" },
      button("Send", () => void send(), { class: "primary" }),
      h("label", {}, queue, " queue it if a turn is running"),
      button("Interrupt", () => void interrupt()),
    ),
    problem,
  );
}
