/**
 * Credits of an organization: amounts in micro-dollars (integers), how a turn's usage becomes a debit,
 * and the ledger's next head, which applies an entry at most once. Pure.
 */
import { validationError } from "../../errors.js";
import type { Usage } from "../../sessions/domain/events.js";

export const MICROS_PER_USD = 1_000_000;
/** The most one grant may add: 1,000,000 USD. */
export const MAX_GRANT_MICROS = 1_000_000 * MICROS_PER_USD;
/** A balance beyond this is refused, so every balance stays an exact integer in a double. */
export const MAX_BALANCE_MICROS = 1_000_000_000 * MICROS_PER_USD;
/** Turn entries the head remembers, so a debit retried within them is applied once. */
export const TURN_WINDOW = 256;
/** Grants the head remembers apart from turns: a re-run grant is recognized however many turns ran since. */
export const GRANT_WINDOW = 64;

export type EntryKind = "turn" | "grant";

/** An organization's credits as a caller sees them: metered once a first grant made its account. */
export interface CreditBalance {
  metered: boolean;
  balanceMicros: number;
}

/**
 * The newest link of an account's ledger: its number, the balance after it, and the keys of the entries
 * applied last (`recent` for turns, `grants` for grants), the memory that makes a retried entry a no-op.
 */
export interface CreditHead {
  seq: number;
  balanceMicros: number;
  recent: string[];
  grants: string[];
}

export interface CreditEntry {
  /** A short digest of the entry id, what the windows hold. */
  key: string;
  kind: EntryKind;
  /** Signed: a grant adds, a debit takes away. */
  micros: number;
}

/** The entry id of a turn's debit: one per turn, whichever worker applies it. */
export const turnEntryId = (sessionId: string, turnId: string) => `turn:${sessionId}:${turnId}`;
/** The entry id of a grant: caller ids live in their own namespace, so none can pass for a turn's. */
export const grantEntryId = (grantId: string) => `grant:${grantId}`;

/**
 * The head after `entry`, or null when the head already holds it (applied before). A missing head is an
 * account without links: the entry makes its first.
 */
export function nextHead(head: CreditHead | null, entry: CreditEntry): CreditHead | null {
  const base = head ?? { seq: 0, balanceMicros: 0, recent: [], grants: [] };
  const window = entry.kind === "grant" ? base.grants : base.recent;
  if (window.includes(entry.key)) return null;
  const balanceMicros = base.balanceMicros + entry.micros;
  if (balanceMicros > MAX_BALANCE_MICROS) throw validationError(`a balance above ${formatUsd(MAX_BALANCE_MICROS)} USD is refused`);
  const remembered = (keys: string[], size: number) => [...keys, entry.key].slice(-size);
  return {
    seq: base.seq + 1,
    balanceMicros,
    recent: entry.kind === "turn" ? remembered(base.recent, TURN_WINDOW) : base.recent,
    grants: entry.kind === "grant" ? remembered(base.grants, GRANT_WINDOW) : base.grants,
  };
}

/**
 * What a turn costs the organization, in micro-dollars: its estimated `cost_usd`; nothing for a provider
 * whose calls are included (the mock); nothing, and `priced: false`, for a model without a price.
 */
export function turnDebitMicros(usage: Usage): { micros: number; priced: boolean } {
  if (usage.cost_status === "included") return { micros: 0, priced: true };
  if (usage.cost_usd === undefined) return { micros: 0, priced: false };
  return { micros: Math.max(0, Math.round(usage.cost_usd * MICROS_PER_USD)), priced: true };
}

/** Micro-dollars as USD with 6 decimals, e.g. `-0.012345`. */
export function formatUsd(micros: number): string {
  const abs = Math.abs(micros);
  return `${micros < 0 ? "-" : ""}${Math.floor(abs / MICROS_PER_USD)}.${String(abs % MICROS_PER_USD).padStart(6, "0")}`;
}

/**
 * A USD amount typed by an operator (`25`, `0.5`, `12.345678`) in micro-dollars, read from its digits so
 * no binary fraction creeps in; a problem when it is negative, malformed, finer than a micro-dollar or
 * above `MAX_GRANT_MICROS`.
 */
export function parseUsd(text: string): { micros: number } | { problem: string } {
  const t = text.trim();
  if (t.startsWith("-")) return { problem: "negative amounts are refused (a grant only adds credits)" };
  const m = /^\+?(\d{1,7})(?:\.(\d{0,6}))?$/.exec(t);
  if (!m) return { problem: "the amount must be a number of US dollars with at most 6 decimals, e.g. 25 or 0.50" };
  const micros = Number(m[1]) * MICROS_PER_USD + Number((m[2] ?? "").padEnd(6, "0"));
  if (micros > MAX_GRANT_MICROS) return { problem: `one grant adds at most ${formatUsd(MAX_GRANT_MICROS)} USD` };
  return { micros };
}
