/**
 * One session: its history read page by page, then its live stream from the last sequence read, and
 * a composer. The API pages history oldest first, so every page is read before going live (a stream
 * opened earlier would replay the same events unpaged). The session's usage is read again after every
 * turn; the log follows new events while the reader is at its bottom.
 */
import type { Api } from "../api.js";
import { button, fill, h } from "../dom.js";
import { follow } from "../follow.js";
import { usageLine } from "../format.js";
import { agentLink, type AgentNames } from "../names.js";
import { describe } from "../problems.js";
import { go, href } from "../router.js";
import { openStream, type LiveStream, type StreamState } from "../stream.js";
import { Timeline } from "../timeline.js";
import type { EventList, EventsAccepted, EventsPost, InboundEvent, Session } from "../types.js";
import { composer } from "./composer.js";

export interface SessionView {
  el: HTMLElement;
  dispose(): void;
}

const STATES: Record<StreamState, string> = { connecting: "connecting…", live: "live", reconnecting: "reconnecting…", closed: "not live" };

/** A child thread names the session that delegated to it. */
function threadOf(session: Session): (HTMLElement | string)[] {
  if (!session.parent) return [];
  const link = h("a", { attrs: { href: href({ view: "session", id: session.parent.sessionId }), "data-role": "thread-parent" } }, session.parent.sessionId);
  return [" · thread of ", link];
}

export function sessionView(api: Api, names: AgentNames, sessionId: string): SessionView {
  const path = `/v1/sessions/${encodeURIComponent(sessionId)}`;
  const title = h("h2", {}, "Session");
  const status = h("span", { class: "badge", attrs: { "data-role": "session-status" } });
  const live = h("span", { class: "badge stream", attrs: { "data-role": "stream-state", title: "" } }, STATES.connecting);
  const ids = h("p", { class: "note" });
  const forked = h("p", { class: "note", attrs: { "data-role": "forked-from" } });
  const usage = h("p", { class: "note usage", attrs: { "data-role": "session-usage" } });
  const problem = h("p", { class: "problem", attrs: { role: "alert" } });
  let stream: LiveStream | null = null;
  let disposed = false;

  const setStatus = (s: Session["status"]) => {
    status.textContent = s;
    status.className = `badge ${s}`;
    box.setStatus(s);
  };
  const showUsage = (s: Session) => (usage.textContent = s.usage ? `This session: ${usageLine(s.usage, "session")}` : "No turn has ended yet.");
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
      if (e.type === "session.status_idle") {
        setStatus(e.payload.stop_reason?.type === "requires_action" ? "waiting_on_human" : "idle");
        // The aggregate includes the turn that just ended.
        void api.get<Session>(path).then(showUsage, () => undefined);
      }
      if (e.type === "session.title_updated" && typeof e.payload.title === "string") title.textContent = e.payload.title;
    },
  });

  // A fork of the whole history: refused (a sentence in `problem`) while a turn runs or waits.
  const forkIt = button(
    "Fork",
    () => {
      problem.textContent = "";
      api.post<Session>(`${path}/fork`, {}).then(
        (made) => go({ view: "session", id: made.id }),
        (err: unknown) => (problem.textContent = describe(err)),
      );
    },
    { attrs: { title: "A new session with this conversation's history so far" } },
  );
  const box = composer(post);
  const follower = follow(timeline.el);
  const el = h(
    "section",
    { class: "view session" },
    h("div", { class: "toolbar" }, h("a", { attrs: { href: "#/sessions" } }, "← Sessions"), status, live, forkIt),
    title,
    ids,
    forked,
    usage,
    problem,
    timeline.el,
    follower.jump,
    box.el,
  );

  async function load(): Promise<void> {
    const session = await api.get<Session>(path);
    title.textContent = session.title || "(untitled)";
    fill(ids, agentLink(names, session.agentId), ` · subject ${session.subjectId} · `, h("code", {}, session.id), ...threadOf(session));
    const origin = session.forkedFrom;
    if (origin) {
      const link = h("a", { attrs: { href: href({ view: "session", id: origin.sessionId }) } }, origin.sessionId);
      fill(forked, "forked from ", link, ` at sequence ${origin.sequence}`);
    } else forked.remove();
    setStatus(session.status);
    showUsage(session);
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
  load().catch((err: unknown) => (problem.textContent = describe(err)));

  return {
    el,
    dispose() {
      disposed = true;
      stream?.close();
      follower.dispose();
    },
  };
}
