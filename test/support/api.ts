/** Small black-box helpers over the HTTP API for the sessions, events and allowance tests. */
import { expect } from "chai";
import { agentBody, client, type Client, type TestServer } from "./server.js";

let subjectCounter = 0;

/** A subject id no other test uses, so allowance windows never interfere. */
export function newSubject(label = "subject"): string {
  return `${label}-${process.pid}-${Date.now().toString(36)}-${++subjectCounter}`;
}

/** A fresh organization with its own key, and a client for it. */
export async function newTenant(server: TestServer): Promise<Client> {
  return client(server.url, await server.newKey());
}

export async function createAgent(api: Client, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post("/v1/agents", agentBody(overrides));
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

export async function createSession(api: Client, agentId: string, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post("/v1/sessions", { agentId, subjectId: newSubject(), ...extra });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

/** A tenant with one agent and one idle session of it. */
export async function newSession(server: TestServer, extra: Record<string, unknown> = {}): Promise<{ api: Client; agent: any; session: any }> {
  const api = await newTenant(server);
  const agent = await createAgent(api);
  const session = await createSession(api, agent.id, extra);
  return { api, agent, session };
}

export function message(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: "user.message", content: [{ type: "text", text }], ...extra };
}

export function steer(text: string): Record<string, unknown> {
  return { type: "user.steer", message: text };
}

export async function send(api: Client, sessionId: string, events: unknown[], extra: Record<string, unknown> = {}) {
  return api.post(`/v1/sessions/${sessionId}/events`, { events, ...extra });
}

/** Sends and expects 202. */
export async function sendOk(api: Client, sessionId: string, events: unknown[], extra: Record<string, unknown> = {}): Promise<any[]> {
  const res = await send(api, sessionId, events, extra);
  expect(res.status, JSON.stringify(res.body)).to.equal(202);
  return res.body.data;
}

/** Polls `check` until it returns a value other than undefined; fails after `timeoutMs`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function waitForStatus(api: Client, sessionId: string, status: string): Promise<any> {
  return eventually(`session ${sessionId} to be ${status}`, async () => {
    const res = await api.get(`/v1/sessions/${sessionId}`);
    expect(res.status).to.equal(200);
    return res.body.status === status ? res.body : undefined;
  });
}

/** Sends a prompt and waits until its turn has ended (the session is idle again). */
export async function completeTurn(api: Client, sessionId: string, text = "hi"): Promise<any> {
  await sendOk(api, sessionId, [message(text)]);
  return waitForStatus(api, sessionId, "idle");
}

/** The whole durable history, walked page by page. */
export async function allEvents(api: Client, sessionId: string, pageSize = 100): Promise<any[]> {
  const out: any[] = [];
  let after = 0;
  for (;;) {
    const res = await api.get(`/v1/sessions/${sessionId}/events?after=${after}&limit=${pageSize}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    out.push(...res.body.data);
    if (!res.body.pagination.hasMore) return out;
    after = res.body.pagination.after;
  }
}

export function remainingOf(res: { headers: Headers }): number {
  const value = res.headers.get("ratelimit-remaining");
  expect(value, "RateLimit-Remaining header").to.be.a("string");
  return Number(value);
}
