/**
 * One card per tool call: the approval it asked for and the answer, the call with its input, and its
 * result, under the call's real status. The call's events share its id: an approval request's and a
 * result's `tool_use_id`, a tool use's `id`, and an approval response names its request.
 */
import { h, when } from "./dom.js";
import { textOf } from "./event-view.js";
import { approvalForm, customToolForm, type Respond } from "./requests.js";
import type { EventEnvelope } from "./types.js";

const USES = new Set(["agent.tool_use", "agent.mcp_tool_use", "agent.custom_tool_use"]);
const RESULTS = new Set(["agent.tool_result", "agent.mcp_tool_result", "user.custom_tool_result"]);

export interface Call {
  id: string;
  approval?: EventEnvelope;
  decision?: EventEnvelope;
  use?: EventEnvelope;
  result?: EventEnvelope;
  /** A turn ended after it: what has not happened will not. */
  ended: boolean;
}

/** The call an event belongs to, if it is a tool call's; `approvals` maps approval request ids to calls. */
export function callIdOf(e: EventEnvelope, approvals: Map<string, string>): string | null {
  const p = e.payload;
  if (e.type === "agent.approval_request" || RESULTS.has(e.type)) return typeof p.tool_use_id === "string" ? p.tool_use_id : null;
  if (USES.has(e.type)) return typeof p.id === "string" ? p.id : e.id;
  if (e.type === "user.approval_response") return approvals.get(String(p.approval_id)) ?? null;
  return null;
}

/** Files an event into its call. */
export function fileEvent(call: Call, e: EventEnvelope): void {
  if (e.type === "agent.approval_request") call.approval = e;
  else if (e.type === "user.approval_response") call.decision = e;
  else if (USES.has(e.type)) call.use = e;
  else call.result = e;
}

export interface CallOpenness {
  approval: boolean;
  custom: boolean;
}

function statusOf(call: Call, open: CallOpenness): string {
  const denied = call.decision?.payload.result === "deny";
  const r = call.result?.payload;
  if (r) {
    if (denied) return "denied";
    if (r.status === "running") return "running";
    return r.is_error === true || r.status === "failed" ? "failed" : "completed";
  }
  if (denied) return "denied";
  if (open.approval) return "awaiting approval";
  if (open.custom) return "awaiting result";
  return call.ended ? "no result" : "running";
}

const str = (v: unknown) => (typeof v === "string" ? v : "");

export function renderCall(call: Call, open: CallOpenness, respond: Respond): HTMLLIElement {
  const first = call.approval ?? call.use ?? call.result ?? call.decision!;
  const p = { ...call.result?.payload, ...call.approval?.payload, ...call.use?.payload };
  const kind = call.use?.type === "agent.custom_tool_use" || p.tool_type === "custom" ? " (custom)" : call.use?.type === "agent.mcp_tool_use" ? " (MCP)" : "";
  const status = statusOf(call, open);
  const decision = call.decision?.payload;
  const reason = str(decision?.reason);
  const input = p.input !== undefined ? h("pre", { class: "json" }, JSON.stringify(p.input, null, 2)) : null;
  return h(
    "li",
    {
      class: `event tool-card${status === "failed" || status === "denied" ? " error" : ""}${open.approval || open.custom ? " request" : ""}`,
      attrs: { "data-type": "tool-call", "data-call": call.id, "data-status": status },
    },
    h(
      "div",
      { class: "meta" },
      h("span", { class: "label" }, `Tool: ${str(p.tool) || "(unnamed)"}${kind}`),
      h("span", { class: `badge call ${status.replace(/ /g, "_")}`, attrs: { "data-role": "call-status" } }, status),
      h("time", { attrs: { datetime: first.createdAt } }, when(first.createdAt)),
    ),
    input,
    call.approval && open.approval ? approvalForm(call.approval, respond) : null,
    call.use?.type === "agent.custom_tool_use" && open.custom ? customToolForm(call.use, respond) : null,
    decision
      ? h(
          "p",
          { class: "note decision" },
          decision.result === "allow" ? `You allowed it${decision.scope ? ` (${str(decision.scope)})` : ""}.` : `You denied it${reason ? `: ${reason}` : "."}`,
        )
      : call.approval && !open.approval && !call.use && !call.result
        ? h("p", { class: "note" }, "No longer waiting.")
        : null,
    call.result ? h("div", { class: "text result" }, textOf(call.result.payload.content, "") || "(empty result)") : null,
  );
}
