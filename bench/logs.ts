/**
 * Session logs written fast for benchmarks: the events of finished turns (a user message,
 * `session.status_running`, the agent's answer, `session.status_idle`), appended through the
 * transition function in batches, so they are what the worker and the API would have written.
 */
import { draft, type Draft } from "../src/sessions/domain/events.js";
import { newId } from "../src/ids.js";
import { change } from "../src/sessions/transitions.js";
import type { Service } from "./support.js";

const SENTENCE = "Could you look into the order I placed last week and tell me when it ships";
/** Drafts per append while filling a log: 100 turns of four events, fewer when they are large. */
const FILL_BATCH = 400;
const FILL_BATCH_BYTES = 16 * 2 ** 20;

/** The four events of one finished turn; `padding` characters make its prompt and answer that much longer. */
function finishedTurn(sessionId: string, n: number, padding: number): Draft[] {
  const turnId = newId("turn");
  const now = new Date().toISOString();
  const text = `${SENTENCE} (question ${n})?${" ".repeat(padding)}`;
  return [
    draft(sessionId, newId("evt"), { type: "user.message", content: [{ type: "text", text }] }, { turnId, status: "processed", processedAt: now, now }),
    draft(sessionId, newId("evt"), { type: "session.status_running" }, { turnId, status: "complete", now }),
    draft(
      sessionId,
      newId("evt"),
      { type: "agent.message", content: [{ type: "text", text: `echo: ${text}` }], delta: false },
      { turnId, status: "complete", now },
    ),
    draft(sessionId, newId("evt"), { type: "session.status_idle", stop_reason: { type: "end_turn" } }, { turnId, status: "complete", now }),
  ];
}

/** Appends `events` events of finished turns to the session's log. */
export async function fill(service: Service, sessionId: string, events: number, padding = 0): Promise<void> {
  const batch = Math.max(4, Math.min(FILL_BATCH, Math.floor(FILL_BATCH_BYTES / (2 * padding + 1))));
  for (let written = 0, n = 0; written < events;) {
    const drafts: Draft[] = [];
    while (drafts.length < batch && written + drafts.length < events) drafts.push(...finishedTurn(sessionId, n++, padding));
    await service.runtime.core.inner.transitions.run(sessionId, () => change({ drafts, state: {}, statuses: [], wake: false }, null));
    written += drafts.length;
  }
}
