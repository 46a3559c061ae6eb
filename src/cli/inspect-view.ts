/** The readable form of `sessions inspect`: one section per store, one `label  value` line per fact. */
import type { Usage } from "../sessions/domain/events.js";
import type { RuntimeState } from "../sessions/domain/session-state.js";
import type { SessionIdentity } from "../sessions/redis/log-entries.js";
import type { Keys } from "../redis/keys.js";
import type { PendingWakeup } from "../sessions/redis/wakeups.js";
import type { SessionDoc } from "../sessions/store/sessions.js";
import { duration, shorten, when } from "./text.js";

export interface Inspection {
  sessionId: string;
  /** The MongoDB record, with its organization's name; null when there is none (deleted, or never created). */
  record: (SessionDoc & { organization: string | null }) | null;
  /** The runtime state on Redis and the sizes of the log; null when the session has no state (deleted). */
  runtime: { state: RuntimeState; identity: SessionIdentity | null; lastSequence: number; logEntries: number; liveEntries: number } | null;
  /** The turn lock: the token its holder writes with, and how long it holds without an extension. */
  turnLock: { token: string; ttlMs: number } | null;
  pending: {
    /** When the session was marked as having work for a worker (ISO), null when it is not. */
    markedSince: string | null;
    wakeups: PendingWakeup[];
    /** False when there were more unacknowledged wake-ups than were looked at. */
    wakeupsComplete: boolean;
    recordWrites: { member: string; since: string }[];
    kickoffs: { callId: string; deadline: string }[];
  };
}

type Line = [label: string, value: string];

const LABEL = 14;
const lines = (rows: Line[]) => rows.map(([label, value]) => `  ${label.padEnd(LABEL)} ${value}`.trimEnd()).join("\n");
const listed = (items: string[]) => (items.length === 0 ? "-" : items.join(", "));

function usage(u: Usage | null | undefined): string {
  if (!u) return "none yet";
  const cost = u.cost_usd === undefined ? "" : `, ${u.cost_usd.toFixed(6)} USD (${u.cost_status})`;
  return `${u.total} tokens in ${u.calls} model call(s)${cost}`;
}

function record(r: NonNullable<Inspection["record"]>): Line[] {
  return [
    ["organization", `${r.organization ?? "?"} (${r.orgId})`],
    ["agent", `${r.agentId} version ${r.agentVersion}`],
    ["subject", r.subjectId],
    ...(r.deploymentId ? [["deployment", r.deploymentId] as Line] : []),
    ["title", r.title === null ? "-" : `${JSON.stringify(shorten(r.title, 80))} (${r.titleSource})`],
    ["status", `${r.status}, as of state version ${r.statusVersion}`],
    ["usage", usage(r.usage)],
    ["created", when(r.createdAt)],
    ["updated", when(r.updatedAt)],
  ];
}

function runtime(rt: NonNullable<Inspection["runtime"]>, keys: Keys, sessionId: string): Line[] {
  const { state } = rt;
  const turn = state.turn;
  const rows: Line[] = [
    ["version", String(state.v)],
    ["status", state.status],
    ["turn", turn ? `${turn.id}, started ${turn.startedAt}, attempt ${turn.attempts}, answering ${listed(turn.events)}` : "-"],
    ...(turn?.calls ?? []).map((c): Line => ["  tool call", `${c.id} ${c.name}: ${c.state}`]),
    ["queue", state.queue.length === 0 ? "-" : `${state.queue.length} prompt(s) waiting: ${listed(state.queue)}`],
    ["interrupt", state.interrupt ?? "-"],
    ["grants", listed(state.grants)],
    ["long-running", listed(Object.entries(state.longRunning).map(([call, l]) => `${call} ${l.tool} (${l.eventId})`))],
    ["usage", usage(state.usage)],
    ["log", `${rt.logEntries} event(s), last sequence ${rt.lastSequence} (${keys.sessionLog(sessionId)}); live stream ${rt.liveEntries} entries`],
  ];
  if (state.compact) rows.push(["compaction", "requested"]);
  if (!rt.identity) rows.push(["identity", "not kept in the state (a session created before it was)"]);
  return rows;
}

function pending(p: Inspection["pending"], keys: Keys, shard: number): Line[] {
  const wakeups = p.wakeups.map((w) =>
    w.consumer === null
      ? `${w.entryId}: not read by a worker yet`
      : `${w.entryId}: delivered to ${w.consumer}, idle ${duration(w.idleMs ?? 0)}, ${w.deliveries === 1 ? "1 delivery" : `${w.deliveries} deliveries`}`,
  );
  if (!p.wakeupsComplete) wakeups.push(`(more unacknowledged wake-ups were not looked at)`);
  return [
    ["worker mark", p.markedSince ? `since ${p.markedSince} (${keys.pending(shard)})` : "-"],
    ...(wakeups.length === 0 ? [["wake-ups", "-"] as Line] : wakeups.map((w, i): Line => [i === 0 ? "wake-ups" : "", w])),
    [
      "record writes",
      p.recordWrites.length === 0
        ? "-"
        : `${p.recordWrites.length} not done, oldest since ${p.recordWrites.map((w) => w.since).sort()[0]} (${keys.projections(shard)})`,
    ],
    ["kickoffs", listed(p.kickoffs.map((k) => `${k.callId} due by ${k.deadline}`))],
  ];
}

/** `where`: where Redis was read (prefix and URL), for a session without state there. */
export function renderInspection(i: Inspection, keys: Keys, where: string): string {
  const lock = i.turnLock;
  return [
    `session ${i.sessionId}`,
    "",
    "record (MongoDB)",
    i.record ? lines(record(i.record)) : "  none: no record (deleted, or never created)",
    "",
    `runtime (Redis ${keys.sessionState(i.sessionId)})`,
    i.runtime
      ? lines(runtime(i.runtime, keys, i.sessionId))
      : `  none (${where}): the session was deleted, or the service uses another REDIS_KEY_PREFIX or REDIS_URL`,
    "",
    `turn lock (Redis ${keys.sessionLock(i.sessionId)})`,
    lines([["holder", lock ? `token ${lock.token}, ${lock.ttlMs < 0 ? "no expiry" : `${duration(lock.ttlMs)} left unless extended`}` : "free"]]),
    "",
    "pending work",
    lines(pending(i.pending, keys, keys.shardOf(i.sessionId))),
    "",
  ].join("\n");
}
