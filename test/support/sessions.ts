/** Helpers for tests that drive sessions: create one, send text, wait for the turn to settle. */
import { expect } from "chai";
import type { Client } from "./server.js";
import { allEvents as history } from "./api.js";
import { agentBody } from "./server.js";

export async function createSession(api: Client, opts: { agent?: Record<string, unknown>; session?: Record<string, unknown> } = {}) {
  const agent = await api.post("/v1/agents", agentBody(opts.agent));
  expect(agent.status, JSON.stringify(agent.body)).to.equal(201);
  const session = await api.post("/v1/sessions", { agentId: agent.body.id, subjectId: `subject-${Date.now()}-${Math.random()}`, ...opts.session });
  expect(session.status, JSON.stringify(session.body)).to.equal(201);
  return { agentId: agent.body.id as string, sessionId: session.body.id as string, subjectId: session.body.subjectId as string };
}

export function userMessage(text: string) {
  return { type: "user.message", content: [{ type: "text", text }] };
}

export async function sendText(api: Client, sessionId: string, text: string, delivery?: "immediate" | "when_idle") {
  return api.post(`/v1/sessions/${sessionId}/events`, { events: [userMessage(text)], ...(delivery ? { delivery } : {}) });
}

export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** All durable events of a session, following pagination. */
export { history };

/** Waits until the session is idle with every turn's terminal event in history. */
export async function settle(api: Client, sessionId: string, turns: number, timeoutMs = 15_000): Promise<any[]> {
  return until(
    () => history(api, sessionId),
    (events) => events.filter((e) => e.type === "session.status_idle").length >= turns,
    timeoutMs,
    `${turns} turn(s) to end`,
  ).then(async (events) => {
    await until(
      () => api.get(`/v1/sessions/${sessionId}`),
      (r) => r.body.status === "idle",
      timeoutMs,
      "status idle",
    );
    return events;
  });
}

export function agentTexts(events: any[]): string[] {
  return events
    .filter((e) => e.type === "agent.message" && e.payload.delta === false)
    .map((e) => e.payload.content.map((b: { text: string }) => b.text).join(""));
}
