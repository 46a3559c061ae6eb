/**
 * Credit accounts as a ledger of links, one document each (`credit_ledger`, `_id` `<orgId>:<seq>`), each
 * holding the balance after it. An entry is applied by inserting the next link: the unique `_id` lets one
 * writer take a number, so concurrent grants and debits of one organization are applied one after the
 * other and none is lost, on MongoDB and on FerretDB alike (whose updates are not atomic; see
 * docs/decisions/budgets-and-credits.md). `credit_accounts` (`_id` the organization) holds a copy of a recent
 * head, a hint that saves walking the ledger from its start; the links after it are found by `_id`.
 */
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Collection, Db } from "mongodb";
import { nextHead, type CreditHead, type EntryKind } from "../domain/credits.js";
import { AppError } from "../../errors.js";
import { isDuplicateKey } from "../../mongo/mongo.js";

interface AccountDoc {
  _id: string;
  /** Compared field by field by `$max`, `seq` first: a later head replaces an earlier one, never the reverse (on MongoDB). */
  head: CreditHead;
}

interface LinkDoc {
  _id: string;
  orgId: string;
  seq: number;
  balanceMicros: number;
  /** What this link applied; the ledger is the account's history. */
  entry: { id: string; kind: EntryKind; micros: number; at: Date };
  /** The windows, kept on the newest links only (`KEPT_WINDOWS`): older links are never a head again. */
  recent?: string[];
  grants?: string[];
}

/** Links behind the head that keep their windows: a writer that read a slightly older head still finds them. */
const KEPT_WINDOWS = 16;
/** Writers of one account that lose the race for a number try again, this many times in all. */
const MAX_ATTEMPTS = 100;

const linkId = (orgId: string, seq: number) => `${orgId}:${seq}`;
/** 96 bits of the entry id's SHA-256: what the windows hold, so a head stays a few kilobytes. */
const entryKey = (entryId: string) => createHash("sha256").update(entryId, "utf8").digest("base64url").slice(0, 16);
const headOf = (link: LinkDoc): CreditHead => ({ seq: link.seq, balanceMicros: link.balanceMicros, recent: link.recent ?? [], grants: link.grants ?? [] });

export interface Applied {
  /** False when the entry had been applied before: the balance is unchanged. */
  applied: boolean;
  head: CreditHead;
}

export class CreditStore {
  private readonly accounts: Collection<AccountDoc>;
  private readonly ledger: Collection<LinkDoc>;

  constructor(db: Db) {
    this.accounts = db.collection<AccountDoc>("credit_accounts");
    this.ledger = db.collection<LinkDoc>("credit_ledger");
  }

  /** The account's newest link, or null for an organization without a credit account. */
  async head(orgId: string): Promise<CreditHead | null> {
    const hint = await this.accounts.findOne({ _id: orgId });
    return this.walk(orgId, hint?.head ?? null);
  }

  /**
   * Applies a signed amount under `entryId` once. Null when the organization has no account and
   * `create` is false (a debit of an unmetered organization); a grant creates the account.
   */
  async apply(orgId: string, entryId: string, kind: EntryKind, micros: number, create: boolean): Promise<Applied | null> {
    const key = entryKey(entryId);
    let head = await this.head(orgId);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      if (!head && !create) return null;
      const next = nextHead(head, { key, kind, micros });
      if (!next) return { applied: false, head: head! };
      try {
        await this.ledger.insertOne({ _id: linkId(orgId, next.seq), orgId, ...next, entry: { id: entryId, kind, micros, at: new Date() } });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // Another writer took the number: read on from there, after a short random pause that spreads a crowd.
        head = await this.walk(orgId, head);
        await sleep(Math.random() * Math.min(attempt, 10));
        continue;
      }
      await this.advance(orgId, next);
      return { applied: true, head: next };
    }
    throw new AppError("busy", "the credit account changed too often to apply the entry; it is retried");
  }

  /** The head from a known one (or the account's start) on: each next link, by `_id`, until one is missing. */
  private async walk(orgId: string, from: CreditHead | null): Promise<CreditHead | null> {
    let head = from;
    for (;;) {
      const next = await this.ledger.findOne({ _id: linkId(orgId, (head?.seq ?? 0) + 1) });
      if (!next) return head;
      head = headOf(next);
    }
  }

  /**
   * Moves the hint forward and drops the windows of a link far enough behind. On FerretDB a concurrent
   * `$max` can set the hint back a little; readers walk forward from wherever it stands.
   */
  private async advance(orgId: string, head: CreditHead): Promise<void> {
    try {
      await this.accounts.updateOne({ _id: orgId }, { $max: { head } }, { upsert: true });
    } catch (err) {
      // Two first upserts of one account on MongoDB: the loser's hint is the other's, or one walk behind it.
      if (!isDuplicateKey(err)) throw err;
    }
    if (head.seq > KEPT_WINDOWS) await this.ledger.updateOne({ _id: linkId(orgId, head.seq - KEPT_WINDOWS) }, { $unset: { recent: "", grants: "" } });
  }
}
