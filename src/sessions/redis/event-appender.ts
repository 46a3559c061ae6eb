/**
 * The commit of a state-machine plan to a session's log: the append, checked against what the plan
 * read, with the allowance it counts, the intents it marks and the wake-up it publishes, all in one
 * script. Only the session transition function calls it (`src/sessions/transitions.ts`; the
 * layering check enforces it).
 */
import type { Draft, Envelope, Payload } from "../domain/events.js";
import type { Plan, StatusChange } from "../domain/session-state.js";
import type { RateLimitStanding } from "../../errors.js";
import type { AllowanceScope } from "./allowances.js";
import { REFUSED, runScript, type RedisClient } from "../../redis/client.js";
import { parseEntry } from "./log-entries.js";
import { consume, standing, windowStart } from "../../redis/fixed-window.js";
import { WINDOW_MS, type Keys } from "../../redis/keys.js";
import type { LiveEcho } from "../../streaming/redis/live-echo.js";
import { isLarge } from "./large-events.js";
import { LIVE_MAXLEN, liveOnlyJson } from "../../streaming/redis/live-stream.js";
import type { StreamEntry } from "../../streaming/redis/stream-reader.js";
import { WAKEUP_MAXLEN } from "./wakeups.js";
import { activeTraceparent, SpanKind, tracing, withSpan } from "../../telemetry/tracing.js";

/** What must still hold for the plan to apply, and what its commit does besides appending. */
export interface Commit {
  /** The state fields the plan was made from, with the strings read (null: the field was absent). */
  reads: [field: string, value: string | null][];
  /** The worker's fencing token; "" for a writer without a lock (an API pod). */
  fence: string;
  /** This writer's `projections` member, when the plan changes the record's status. */
  projection: string | null;
  /** Points the commit counts against an allowance, refusing the whole commit when it has no room. */
  allowance?: { scope: AllowanceScope; kind: "messages"; limit: number; cost: number };
  /**
   * A mark the commit writes to the overlay, unless the field is there already: then it commits nothing
   * and answers the field's value (`done`). The script appends the first sequence to `value`. It is a
   * request's Idempotency-Key (the idempotency module's once-marks, which own the format).
   */
  once?: { field: string; value: string };
}

export interface Appended {
  /** The durable drafts as they now stand in the log, with their sequences. */
  envelopes: Envelope[];
  liveIds: string[];
  /** The state version after the append. */
  version: number;
  /** The allowance's standing after counting, when the commit counted one. */
  standing?: RateLimitStanding;
}

export type AppendResult =
  | ({ ok: true } & Appended)
  /** A field the plan read has changed: `fields` is the state hash as it now is. */
  | { ok: false; reason: "stale"; fields: Record<string, string> }
  | { ok: false; reason: "fenced" | "missing" }
  | { ok: false; reason: "rate_limited"; standing: RateLimitStanding }
  /** The overlay already held the commit's mark: its value. */
  | { ok: false; reason: "done"; mark: string };
const SEQUENCE_MARK = '"sequence":0,';

/** Splits an envelope's JSON around its sequence so the script can splice the number in. */
function template(d: Draft): [string, string] {
  const { id, type, sessionId, ...rest } = d;
  const json = JSON.stringify({ id, type, sessionId, sequence: 0, ...rest });
  const at = json.indexOf(SEQUENCE_MARK);
  return [json.slice(0, at + SEQUENCE_MARK.length - 2), json.slice(at + SEQUENCE_MARK.length - 1)];
}

/** State fields as the hash stores them: strings as is, null as "", the rest as JSON. */
export function encodeState(state: Plan["state"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, value] of Object.entries(state)) {
    if (value === undefined) continue;
    out[field] = typeof value === "string" ? value : value === null ? "" : JSON.stringify(value);
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

/**
 * A draft as the script takes it, with the script's mode for it (`large-events.ts`): a durable one's
 * envelope split around its sequence, `large` when the live stream gets a stub of it; a live-only
 * one's whole, `patched` when it is large and carries a replacement the same plan writes to the
 * overlay: the live stream then holds it without that payload, and names the event to read it from.
 */
type Encoded =
  | { draft: Draft; mode: "log" | "large"; json: [string, string] }
  | { draft: Draft; mode: "live"; json: string }
  | { draft: Draft; mode: "patched"; json: string; replacementOf: string };

/** `replacements`: the replacement payloads the same commit writes to the overlay, by event id. */
function encodeDraft(d: Draft, replacements: ReadonlyMap<string, Payload>): Encoded {
  if (d.liveOnly) {
    const json = liveOnlyJson(d);
    const of = d.replacementOf;
    // Patched only when this very commit writes the payload the frame leaves out.
    if (of === undefined || replacements.get(of) !== d.payload.payload || !isLarge([json, ""])) return { draft: d, mode: "live", json };
    return { draft: d, mode: "patched", json: liveOnlyJson({ ...d, payload: { ...d.payload, payload: null } }), replacementOf: of };
  }
  const json = template(d);
  return { draft: d, mode: isLarge(json) ? "large" : "log", json };
}

/** The script's five arguments for a draft (the contract of `append-events-11.lua`). */
function draftArgs(e: Encoded): string[] {
  switch (e.mode) {
    case "live":
      return [e.json, "", e.draft.type, "", e.mode];
    case "patched":
      return [e.json, e.replacementOf, e.draft.type, "", e.mode];
    default:
      return [...e.json, e.draft.type, e.draft.turnId ?? "", e.mode];
  }
}

/** The live stream's entries the script wrote, as a read returns them (fields as the script's XADDs name them). */
function liveEntries(drafts: Encoded[], liveIds: string[], firstSequence: number): StreamEntry[] {
  let seq = firstSequence;
  return drafts.map((d, i): StreamEntry => {
    if (d.mode === "live") return [liveIds[i]!, ["type", d.draft.type, "env", d.json]];
    if (d.mode === "patched") return [liveIds[i]!, ["type", d.draft.type, "env", d.json, "patch", d.replacementOf]];
    const sequence = String(seq++);
    const env = d.json[0] + sequence + d.json[1];
    return [liveIds[i]!, ["type", d.draft.type, "seq", sequence, ...(d.mode === "large" ? ["bytes", String(Buffer.byteLength(env))] : ["env", env])]];
  });
}

export class EventAppender {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly echo: LiveEcho,
  ) {}

  /**
   * Commits a plan in one round trip (`append-events-11.lua`), if what it read still holds. On a Redis
   * Cluster the allowance's counter is in another slot than the session: it is counted first, by a step
   * of its own, and its points are given back when the commit is refused.
   *
   * Why two paths and not one (docs/decisions/redis.md, "Redis Cluster"): the counter is per (organization,
   * agent, subject), a scope that spans sessions spread over 16 shards by their ids. Tagging it with the
   * session's shard would split one allowance into up to 16; sharding sessions by their scope instead would
   * pile a busy subject's sessions, wake-ups and intents onto one master and rename every session's keys;
   * a tag per organization would make a large one a hot slot. And counting apart on a single node too would
   * add a round trip to every send and the over-counting windows below, which one script does not have.
   */
  apply(sessionId: string, plan: Plan, commit: Commit): Promise<AppendResult> {
    if (!tracing()) return this.applyPlan(sessionId, plan, commit);
    // A commit that wakes a worker is the producer of the wake-up: the worker's pass is its child.
    return withSpan(
      "session.append",
      () => ({
        "session.id": sessionId,
        "agent_sessions.event.types": plan.drafts.filter((d) => !d.liveOnly).map((d) => d.type),
        "agent_sessions.wakeup": plan.wake,
      }),
      async (span) => {
        const result = await this.applyPlan(sessionId, plan, commit);
        span.setAttribute("agent_sessions.append.outcome", result.ok ? "ok" : result.reason);
        return result;
      },
      { kind: plan.wake ? SpanKind.PRODUCER : SpanKind.INTERNAL },
    );
  }

  private async applyPlan(sessionId: string, plan: Plan, commit: Commit): Promise<AppendResult> {
    const now = Date.now();
    const allowance = commit.allowance;
    const counter = allowance
      ? this.keys.allowance(allowance.scope.orgId, allowance.scope.agentId, allowance.scope.subjectId, allowance.kind, windowStart(now))
      : null;
    let apart: RateLimitStanding | null = null;
    if (allowance && counter && this.keys.cluster) {
      const { allowed, ...counted } = await consume(this.redis, counter, allowance.limit, allowance.cost, now);
      if (!allowed) return { ok: false, reason: "rate_limited", standing: counted };
      apart = counted;
    }
    const result = await this.commit(sessionId, plan, commit, now, apart ? null : counter);
    // A refused commit counts nothing. A reply lost with its connection leaves the points taken: the commit may have run.
    if (apart && !result.ok) await runScript(this.redis, "refund", [counter!], [allowance!.cost]).catch(() => undefined);
    if (apart && result.ok) result.standing = apart;
    return result;
  }

  /** The script's call; `counter`: the allowance it counts in the same step (null: none, or counted apart). */
  private async commit(sessionId: string, plan: Plan, commit: Commit, now: number, counter: string | null): Promise<AppendResult> {
    const allowance = counter ? commit.allowance : undefined;
    const once = commit.once;
    const args: (string | number)[] = [
      commit.fence,
      now,
      LIVE_MAXLEN,
      allowance?.limit ?? 0,
      allowance?.cost ?? 0,
      WINDOW_MS,
      plan.wake ? sessionId : "",
      commit.projection ?? "",
      WAKEUP_MAXLEN,
    ];
    args.push(once?.field ?? "", once?.value ?? "");
    // The wake-up carries this append's trace context, so the worker's pass joins the request's trace ("" when tracing is off).
    args.push(plan.wake ? activeTraceparent() : "");
    args.push(commit.reads.length);
    for (const [field, value] of commit.reads) args.push(field, value === null ? "" : `=${value}`);
    const replacements = new Map(plan.statuses.flatMap((s) => (s.payload ? [[s.eventId, s.payload] as const] : [])));
    const drafts = plan.drafts.map((d) => encodeDraft(d, replacements));
    args.push(drafts.length);
    for (const e of drafts) args.push(...draftArgs(e));
    const state = Object.entries(encodeState(plan.state));
    args.push(state.length, ...state.flat());
    const overlay = overlayFields(plan.statuses);
    args.push(overlay.length / 2, ...overlay);
    const reply = (await runScript(this.redis, "appendEvents", this.keys.appendEventsKeys(sessionId, counter), args)) as (number | string | string[])[];
    switch (reply[0]) {
      case REFUSED.STALE:
        return { ok: false, reason: "stale", fields: parseEntry(reply[1] as string[]) };
      case REFUSED.FENCED:
        return { ok: false, reason: "fenced" };
      case REFUSED.MISSING:
        return { ok: false, reason: "missing" };
      case REFUSED.RATE_LIMITED:
        return { ok: false, reason: "rate_limited", standing: standing(allowance!.limit, Number(reply[1]), Number(reply[2]), now) };
      case REFUSED.DONE:
        return { ok: false, reason: "done", mark: reply[1] as string };
    }
    let next = Number(reply[0]);
    const envelopes = plan.drafts
      .filter((d) => !d.liveOnly)
      .map(({ id, type, sessionId: sid, ...rest }) => ({ id, type, sessionId: sid, sequence: next++, ...rest }));
    const liveIds = reply.slice(5).map(String);
    this.echo.appended(sessionId, String(reply[4]), () => liveEntries(drafts, liveIds, Number(reply[0])));
    const appended: Appended = { envelopes, liveIds, version: Number(reply[1]) };
    if (allowance) appended.standing = standing(allowance.limit, Number(reply[2]), Number(reply[3]), now);
    return { ok: true, ...appended };
  }
}
