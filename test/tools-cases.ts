/** Agent tool entries and the session steps (post events, wait for a pause, answer an approval) shared by the tools tests. */
import type { Client } from "./support/server.js";
import { history, until } from "./support/sessions.js";

export const ask = { type: "always_ask" };
export const allow = { type: "always_allow" };
export const deny = { type: "always_deny" };
export const lookup = (extra: Record<string, unknown> = {}) => ({
  type: "custom_tool",
  name: "lookup",
  description: "Looks up an order",
  input_schema: { type: "object", properties: { order: { type: "string" } } },
  ...extra,
});
export const toolset = (policy: Record<string, unknown>, configs: unknown[] = []) => ({
  type: "agent_toolset",
  defaultConfig: { enabled: true, permissionPolicy: policy },
  configs,
});

/** The steps on sessions of the client `api()`, which a describe sets up in its `before`. */
export function sessionSteps(api: () => Client) {
  const post = (sessionId: string, ...events: unknown[]) => api().post(`/v1/sessions/${sessionId}/events`, { events });
  /** Waits until the session pauses, and returns its blocking event ids with the history. */
  async function paused(sessionId: string, pauses = 1) {
    const events = await until(
      () => history(api(), sessionId),
      (h) => h.filter((e) => e.type === "session.status_idle" && e.payload.stop_reason.type === "requires_action").length >= pauses,
      15_000,
      "the turn to pause",
    );
    const last = events.filter((e) => e.type === "session.status_idle").at(-1);
    return { events, blocking: last.payload.stop_reason.event_ids as string[] };
  }
  const approve = (sessionId: string, approvalId: string, scope?: string, result = "allow") =>
    post(sessionId, { type: "user.approval_response", approval_id: approvalId, result, ...(scope ? { scope } : {}) });
  return { post, paused, approve };
}
