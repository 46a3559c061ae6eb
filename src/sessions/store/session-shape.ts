/**
 * How a session record is stored. Every conditional write of a record is a `$max` or a `$set` on a
 * filter of `_id` alone (the one filter FerretDB v1 pushes down; see docs/decisions/storage-and-ferretdb.md), so
 * the fields a guard compares are one sub-document each whose first field orders it:
 *
 * - `projected: {version, status}`: the status as of a state version; `$max` keeps the later version.
 * - `usageProjected: {version, usage}`: the usage total as of a state version, written only by the
 *   commits that changed it (a turn's end), so a commit that read an older total never writes it back.
 *   Absent while the runtime state keeps no total (a session from before it did): `tally` is the total.
 * - `generatedTitle` beside the caller's `title`: the caller's always wins, whatever the order of writes.
 *
 * Records written before (top-level `status`, `statusVersion`, `usage`, `usageTurn`, and a generated
 * title in `title`; then `tally: {seq, turn, usage}` when workers added usage to the record) are read as
 * they are; `migrateStatusProjections` gives them `projected` for lists.
 */
import type { Metadata } from "../../agents/domain/agent-config.js";
import type { Usage } from "../domain/events.js";
import type { SessionStatus } from "../domain/session-state.js";
import { decode, encode } from "../../mongo/caller-json.js";

/** A child thread's link to the session that delegated to it (`src/worker/delegations.ts`). */
export interface ThreadLink {
  parentSessionId: string;
  /** The parent's delegation call (its tool-use event) this thread answers. */
  toolUseId: string;
  /** 1 for a thread of a top-level session, one more at each level below. */
  depth: number;
}

export interface SessionDoc {
  _id: string;
  orgId: string;
  agentId: string;
  agentVersion: number;
  subjectId: string;
  role: string | null;
  title: string | null;
  titleSource: "caller" | "generated" | null;
  yoloMode: boolean;
  metadata: Metadata;
  /** Spend limit in dollars; absent or null for none. */
  budgetUsd?: number | null;
  /** Set when the session's agent belongs to a deployment: the session is one of its threads (its workspace, its secrets). */
  deploymentId?: string;
  /** Set on a fork: the session it was forked from, and the last sequence of its history copied. */
  forkedFrom?: { sessionId: string; sequence: number };
  /** Set on a child thread: the session and the call that opened it. */
  thread?: ThreadLink;
  /** Projection of the runtime status, for list filters; `statusVersion` is the state version it reflects. */
  status: SessionStatus;
  statusVersion: number;
  /** Every ended turn's usage added up, as of `statusVersion`. */
  usage: Usage | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Projected {
  version: number;
  status: SessionStatus;
}

export interface UsageProjection {
  version: number;
  usage: Usage | null;
}

/** A record write after a commit: the parts of the runtime state the commit changed, each with its version. */
export interface StateProjection {
  status?: Projected;
  usage?: UsageProjection;
}

/** Usage added to the record by workers before the runtime state kept the total. */
interface Tally {
  seq: number;
  turn: string;
  usage: Usage;
}

type Loaded = "status" | "statusVersion" | "usage";

export interface StoredSession extends Omit<SessionDoc, Loaded> {
  projected: Projected;
  usageProjected?: UsageProjection;
  generatedTitle: string | null;
}

/** A record as it may be on disk: one written before this shape has the loaded fields instead. */
type OnDisk = Partial<StoredSession> &
  Partial<Pick<SessionDoc, Loaded>> & { tally?: Tally | null; usageTurn?: string | null } & Omit<SessionDoc, Loaded | "metadata"> & { metadata: unknown };

/** Field order matters: `$max` compares sub-documents field by field, so the version decides. */
export const projected = (version: number, status: SessionStatus): Projected => ({ version, status });
export const usageProjected = (version: number, usage: Usage | null): UsageProjection => ({ version, usage });

export function toStored(doc: SessionDoc): StoredSession {
  const { status, statusVersion, usage, ...rest } = doc;
  return {
    ...rest,
    metadata: storedMetadata(doc.metadata),
    projected: projected(statusVersion, status),
    usageProjected: usageProjected(statusVersion, usage),
    generatedTitle: null,
  };
}

/** Metadata is stored as JSON text: its keys are the caller's (see caller-json.ts). */
export function storedMetadata(metadata: Metadata): Metadata {
  return encode(metadata) as unknown as Metadata;
}

/** The usage total a record holds: its projection's, else what workers added to it before there was one. */
function usageOf(disk: OnDisk): Usage | null {
  if (disk.usageProjected) return disk.usageProjected.usage;
  return disk.tally?.usage ?? disk.usage ?? null;
}

export function fromStored(disk: OnDisk | null): SessionDoc | null {
  if (!disk) return null;
  const { projected: p, usageProjected: _up, tally: _t, generatedTitle, status, statusVersion, usage: _u, usageTurn: _ut, metadata, ...rest } = disk;
  const generated = rest.title === null && generatedTitle ? generatedTitle : null;
  return {
    ...rest,
    metadata: decode(metadata as Metadata),
    title: generated ?? rest.title,
    titleSource: generated ? "generated" : rest.titleSource,
    status: p?.status ?? status ?? "idle",
    statusVersion: p?.version ?? statusVersion ?? 0,
    usage: usageOf(disk),
  };
}
