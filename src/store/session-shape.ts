/**
 * How a session record is stored. Every conditional write of a record is a `$max` or a `$set` on a
 * filter of `_id` alone (the one filter FerretDB v1 pushes down; see docs/decisions.md, issue 8), so
 * the fields a guard compares are one sub-document each whose first field orders it:
 *
 * - `projected: {version, status}`: the status as of a state version; `$max` keeps the later version.
 * - `tally: {seq, turn, usage}`: the usage added up to turn `turn`, the `seq`-th turn counted; `$max`
 *   keeps the longer tally, so a tally computed from a stale read never replaces a newer one.
 * - `generatedTitle` beside the caller's `title`: the caller's always wins, whatever the order of writes.
 *
 * Records written before (top-level `status`, `statusVersion`, `usage`, `usageTurn`, and a generated
 * title in `title`) are read as they are; `migrateStatusProjections` gives them `projected` for lists.
 */
import type { Metadata } from "../domain/agent-config.js";
import type { Usage } from "../domain/events.js";
import type { SessionStatus } from "../domain/session-state.js";
import { decode, encode } from "./caller-json.js";

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
  /** Projection of the runtime status, for list filters; `statusVersion` is the state version it reflects. */
  status: SessionStatus;
  statusVersion: number;
  usage: Usage | null;
  /** The last turn whose usage was added to `usage`; makes adding idempotent. */
  usageTurn: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Projected {
  version: number;
  status: SessionStatus;
}

export interface Tally {
  seq: number;
  turn: string;
  usage: Usage;
}

type Loaded = "status" | "statusVersion" | "usage" | "usageTurn";

export interface StoredSession extends Omit<SessionDoc, Loaded> {
  projected: Projected;
  tally: Tally | null;
  generatedTitle: string | null;
}

/** A record as it may be on disk: one written before this shape has the loaded fields instead. */
type OnDisk = Partial<StoredSession> & Partial<Pick<SessionDoc, Loaded>> & Omit<SessionDoc, Loaded | "metadata"> & { metadata: unknown };

/** Field order matters: `$max` compares sub-documents field by field. */
export const projected = (version: number, status: SessionStatus): Projected => ({ version, status });

export function toStored(doc: SessionDoc): StoredSession {
  const { status, statusVersion, usage, usageTurn, ...rest } = doc;
  const tally = usage && usageTurn ? { seq: 1, turn: usageTurn, usage } : null;
  return { ...rest, metadata: storedMetadata(doc.metadata), projected: projected(statusVersion, status), tally, generatedTitle: null };
}

/** Metadata is stored as JSON text: its keys are the caller's (see caller-json.ts). */
export function storedMetadata(metadata: Metadata): Metadata {
  return encode(metadata) as unknown as Metadata;
}

/** The tally a record holds (one written before `tally` existed counts as one turn). */
export function tallyOf(disk: Pick<OnDisk, "tally" | "usage" | "usageTurn">): Tally | null {
  if (disk.tally) return disk.tally;
  return disk.usage && disk.usageTurn ? { seq: 1, turn: disk.usageTurn, usage: disk.usage } : null;
}

export function fromStored(disk: OnDisk | null): SessionDoc | null {
  if (!disk) return null;
  const { projected: p, tally: _t, generatedTitle, status, statusVersion, usage: _u, usageTurn: _ut, metadata, ...rest } = disk;
  const tally = tallyOf(disk);
  const generated = rest.title === null && generatedTitle ? generatedTitle : null;
  return {
    ...rest,
    metadata: decode(metadata as Metadata),
    title: generated ?? rest.title,
    titleSource: generated ? "generated" : rest.titleSource,
    status: p?.status ?? status ?? "idle",
    statusVersion: p?.version ?? statusVersion ?? 0,
    usage: tally?.usage ?? null,
    usageTurn: tally?.turn ?? null,
  };
}
