/**
 * What the entries and hashes of a session's log hold, read as values: a live stream's frames, the
 * runtime state hash (the state, its snapshot for a plan, the session's identity), and stream entries'
 * field lists. Pure reading; the reads themselves are `event-log.ts`'s.
 */
import type { LiveEnvelope } from "../domain/events.js";
import { INITIAL_STATE, type RuntimeState, type SessionStatus } from "../domain/session-state.js";

/**
 * A frame of the live stream, as SSE delivers it. A large durable event's frame is a stub, without its
 * envelope: readers take the event from the log (`large-events.ts`). A large live-only frame that
 * carries a replacement payload comes without it (`payload.payload` is null) and names the event
 * whose overlay holds it (`replacementOf`): readers complete it with `completed`.
 */
export type LiveFrame =
  | {
      liveId: string;
      envelope: LiveEnvelope;
      /** The durable sequence, absent for live-only frames (whose envelope has `sequence: null`). */
      sequence?: number;
      replacementOf?: undefined;
    }
  | { liveId: string; envelope: LiveEnvelope; sequence?: undefined; replacementOf: string }
  | { liveId: string; envelope: null; sequence: number };

export function parseState(hash: Record<string, string>): RuntimeState {
  if (!hash.v) return { ...INITIAL_STATE };
  const json = <T>(field: string, fallback: T): T => (hash[field] ? (JSON.parse(hash[field]!) as T) : fallback);
  return {
    v: Number(hash.v),
    status: (hash.status as SessionStatus | "deleted" | undefined) ?? "idle",
    turn: json("turn", null),
    queue: json("queue", []),
    interrupt: hash.interrupt || null,
    grants: json("grants", []),
    longRunning: json("longRunning", {}),
    ...(hash.usage === undefined ? {} : { usage: json("usage", null) }),
    ...(hash.compact === "true" ? { compact: true } : {}),
  };
}

/** What lists show of a session's runtime state. */
export type StateSummary = Pick<RuntimeState, "status" | "usage">;

/** Whose a session is and whom it counts against: written beside its state at creation, never changed. */
export interface SessionIdentity {
  orgId: string;
  agentId: string;
  subjectId: string;
}

/** The state hash's fields of the identity (not state fields: no plan reads or writes them). */
export const IDENTITY_FIELDS = { orgId: "org", agentId: "agent", subjectId: "subject" } as const;

/** The identity kept in a state hash; null for a session created before it was kept there. */
export function identityOf(fields: Record<string, string | null | undefined>): SessionIdentity | null {
  const orgId = fields[IDENTITY_FIELDS.orgId];
  const agentId = fields[IDENTITY_FIELDS.agentId];
  const subjectId = fields[IDENTITY_FIELDS.subjectId];
  return orgId && agentId && subjectId ? { orgId, agentId, subjectId } : null;
}

/** The runtime state with the hash it was parsed from: a plan's preconditions are the strings it read. */
export interface Snapshot {
  state: RuntimeState;
  fields: Record<string, string>;
}

/** A snapshot of a state hash; null for a session without state (deleted: creation writes it first). */
export function snapshotOf(fields: Record<string, string>): Snapshot | null {
  return fields.v === undefined ? null : { state: parseState(fields), fields };
}

export function parseEntry(fields: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) out[fields[i]!] = fields[i + 1]!;
  return out;
}

export function toLiveFrame(id: string, fields: string[]): LiveFrame {
  const f = parseEntry(fields);
  if (f.env === undefined) return { liveId: id, envelope: null, sequence: Number(f.seq) };
  if (f.patch !== undefined) return { liveId: id, envelope: JSON.parse(f.env) as LiveEnvelope, replacementOf: f.patch };
  const frame: LiveFrame = { liveId: id, envelope: JSON.parse(f.env) as LiveEnvelope };
  if (f.seq !== undefined) frame.sequence = Number(f.seq);
  return frame;
}
