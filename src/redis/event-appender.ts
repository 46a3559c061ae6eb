/**
 * The compare-and-set append of a state-machine plan to a session's log. Only the session transition
 * function calls it (`src/services/session-transitions.ts`; the layering check enforces it).
 */
import type { Redis } from "ioredis";
import type { Draft, Envelope } from "../domain/events.js";
import type { Plan, StatusChange } from "../domain/session-state.js";
import { REFUSED, runScript } from "./client.js";
import type { Keys } from "./keys.js";
import { LIVE_MAXLEN, liveOnlyJson } from "./live-stream.js";

export type AppendRefusal = "stale" | "fenced" | "missing";

export interface Appended {
  /** The durable drafts as they now stand in the log, with their sequences. */
  envelopes: Envelope[];
  liveIds: string[];
  /** The state version after the append. */
  version: number;
}

export type AppendResult = ({ ok: true } & Appended) | { ok: false; reason: AppendRefusal };

const SEQUENCE_MARK = '"sequence":0,';

/** Splits an envelope's JSON around its sequence so the script can splice the number in. */
function template(d: Draft): [string, string] {
  const { id, type, sessionId, ...rest } = d;
  const json = JSON.stringify({ id, type, sessionId, sequence: 0, ...rest });
  const at = json.indexOf(SEQUENCE_MARK);
  return [json.slice(0, at + SEQUENCE_MARK.length - 2), json.slice(at + SEQUENCE_MARK.length - 1)];
}

/** State fields as the hash stores them: strings as is, null as "", the rest as JSON. */
function stateFields(state: Plan["state"]): string[] {
  const out: string[] = [];
  for (const [field, value] of Object.entries(state)) {
    if (value === undefined) continue;
    out.push(field, typeof value === "string" ? value : value === null ? "" : JSON.stringify(value));
  }
  return out;
}

/**
 * Overlay fields: `<eventId>` holds the current status, `<eventId>:turn` the turn a queued prompt
 * joined, `<eventId>:payload` a replacement payload. Kept apart so a later status change never drops
 * the others.
 */
function overlayFields(changes: StatusChange[]): string[] {
  return changes.flatMap((c) => [
    c.eventId,
    JSON.stringify({ status: c.status, processedAt: c.processedAt }),
    ...(c.turnId ? [`${c.eventId}:turn`, c.turnId] : []),
    ...(c.payload ? [`${c.eventId}:payload`, JSON.stringify(c.payload)] : []),
  ]);
}

export class EventAppender {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  /** Applies a plan made from state version `expected` (or any version when null). */
  async apply(sessionId: string, plan: Plan, expected: number | null, fence = ""): Promise<AppendResult> {
    const args: (string | number)[] = [expected === null ? "" : expected, fence, LIVE_MAXLEN, plan.drafts.length];
    for (const d of plan.drafts) {
      if (d.liveOnly) args.push(liveOnlyJson(d), "", d.type, "", "live");
      else args.push(...template(d), d.type, d.turnId ?? "", "log");
    }
    const state = stateFields(plan.state);
    args.push(state.length / 2, ...state);
    const overlay = overlayFields(plan.statuses);
    args.push(overlay.length / 2, ...overlay);
    const reply = (await runScript(this.redis, "appendEvents", this.keys.appendEventsKeys(sessionId), args)) as (number | string)[];
    if (reply[0] === REFUSED.STALE) return { ok: false, reason: "stale" };
    if (reply[0] === REFUSED.FENCED) return { ok: false, reason: "fenced" };
    if (reply[0] === REFUSED.MISSING) return { ok: false, reason: "missing" };
    let next = Number(reply[0]);
    const envelopes = plan.drafts
      .filter((d) => !d.liveOnly)
      .map(({ id, type, sessionId: sid, ...rest }) => ({ id, type, sessionId: sid, sequence: next++, ...rest }));
    return { ok: true, envelopes, liveIds: reply.slice(2).map(String), version: Number(reply[1]) };
  }
}
