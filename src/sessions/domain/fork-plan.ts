/**
 * A fork's copy of a session's history, planned page by page (pure): each event of the original up to
 * the cut becomes an entry of the new log with a new id, the new session's id and the same sequence,
 * and every field that names another event or a turn is renamed with the same map, so the copy's
 * references hold among themselves. The planner also tells whether the cut is an idle point, and what
 * the new session's runtime state starts from (docs/decisions/sessions-and-events.md, "Forks").
 */
import { newId, type IdPrefix } from "../../ids.js";
import type { Envelope, Payload, Usage } from "./events.js";

/** An event of the new log, as the copy script appends it. */
export interface ForkEntry {
  sequence: number;
  type: string;
  /** The (renamed) turn id, or "" for none. */
  turn: string;
  /** The envelope's JSON. */
  env: string;
}

/** The payload fields, by event type, that name another event: a tool use, an approval request, a question. */
const EVENT_REFERENCES: Readonly<Record<string, readonly string[]>> = {
  "agent.tool_use": ["id"],
  "agent.mcp_tool_use": ["id"],
  "agent.custom_tool_use": ["id"],
  "agent.tool_result": ["tool_use_id"],
  "agent.mcp_tool_result": ["tool_use_id"],
  "agent.approval_request": ["tool_use_id"],
  "agent.clarify_request": ["request_id"],
  "user.custom_tool_result": ["tool_use_id"],
  "user.approval_response": ["approval_id"],
  "user.clarify_result": ["request_id"],
  // `thread_id` names the child thread, a session the fork does not copy: it stays.
  "agent.thread_message_sent": ["tool_use_id"],
  "agent.thread_message_received": ["tool_use_id"],
};

/** The prefix of an id (`evt_…` → `evt`), kept by its new name. */
function prefixOf(id: string): IdPrefix {
  return id.slice(0, id.indexOf("_")) as IdPrefix;
}

export class ForkPlanner {
  /** Old id → new id, for events and turns alike (ids never collide across kinds: their prefixes differ). */
  private readonly names = new Map<string, string>();
  /** Turns started and not ended (a pause for a human keeps a turn open). */
  private readonly open = new Set<string>();
  /** Prompts whose turn has not ended, by that turn (null: queued, no turn yet). */
  private readonly unanswered = new Map<string | null, number>();
  private lastTurnUsage: Usage | null = null;
  private copied = 0;

  constructor(private readonly sessionId: string) {}

  /** The new name of an id of the original: the same one for every reference to it. */
  private renamed(id: string): string {
    let name = this.names.get(id);
    if (name === undefined) {
      name = newId(prefixOf(id));
      this.names.set(id, name);
    }
    return name;
  }

  private payloadOf(e: Envelope): Payload {
    const payload: Record<string, unknown> = { ...e.payload };
    for (const field of EVENT_REFERENCES[e.type] ?? []) {
      const value = payload[field];
      if (typeof value === "string") payload[field] = this.renamed(value);
    }
    if (e.type === "session.status_idle" && e.payload.stop_reason?.type === "requires_action") {
      // The events a pause waits on come before it; one not copied is a child thread's, which stays.
      const waited = e.payload.stop_reason.event_ids.map((id) => this.names.get(id) ?? id);
      payload.stop_reason = { ...e.payload.stop_reason, event_ids: waited };
    }
    if (e.type === "session.compacted" && typeof payload.kept_turn === "string") payload.kept_turn = this.renamed(payload.kept_turn);
    return payload as Payload;
  }

  /** Whether the conversation is at rest after `e`: which turns are open, which prompts wait. */
  private observe(e: Envelope): void {
    if (e.type === "user.message") this.unanswered.set(e.turnId, (this.unanswered.get(e.turnId) ?? 0) + 1);
    else if (e.type === "session.status_running" && e.turnId) this.open.add(e.turnId);
    else if (e.type === "session.status_idle" && e.payload.stop_reason?.type !== "requires_action") {
      if (e.turnId) {
        this.open.delete(e.turnId);
        this.unanswered.delete(e.turnId);
      }
      if (e.usage) this.lastTurnUsage = e.usage;
    }
  }

  /** The entries of the next page of the original's events (in order, overlay merged in). */
  page(events: readonly Envelope[]): ForkEntry[] {
    return events.map((e) => {
      this.observe(e);
      this.copied += 1;
      const turn = e.turnId === null ? null : this.renamed(e.turnId);
      // Spread first, so the envelope keeps its fields' order.
      const envelope = { ...e, id: this.renamed(e.id), sessionId: this.sessionId, turnId: turn, payload: this.payloadOf(e) };
      return { sequence: e.sequence, type: e.type, turn: turn ?? "", env: JSON.stringify(envelope) };
    });
  }

  /** How many events the pages held. */
  get count(): number {
    return this.copied;
  }

  /** Why the history read so far does not end at an idle point; null when it does. */
  cutProblem(): string | null {
    if (this.open.size > 0) return "a turn is open there (running, or waiting on an approval, a custom tool's result or an answer)";
    if (this.unanswered.size > 0) return "a message there has not been answered yet";
    return null;
  }

  /**
   * The new session's usage total: nothing spent (the fork cost no model call), with the context of the
   * last turn ended before the cut, which the next turn starts from (so compaction triggers as it would
   * have on the original). Null when no turn ended before the cut.
   */
  startingUsage(): Usage | null {
    const last = this.lastTurnUsage;
    if (!last) return null;
    const zero = { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0, total: 0, calls: 0, last_turn_latency_ms: 0, latency_ms: 0 };
    const context = { context_used: last.context_used, context_max: last.context_max, context_percent: last.context_percent };
    return { model: last.model, ...zero, ...context, cost_status: last.cost_status, ...(last.cost_usd === undefined ? {} : { cost_usd: 0 }) };
  }
}
