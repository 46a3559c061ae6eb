/**
 * An organization's credits: the balance, the checks made before spending, grants and debits. An
 * organization is metered once a first grant made its credit account; one without is unmetered, and its
 * turns run and cost it nothing (self-hosted use of the core interface).
 *
 * Every turn's usage cost is debited (`TurnDebits`): recorded as owed before the turn's end commits and
 * applied after it, once, under the turn's entry id; a worker that stops in between (a crash, MongoDB
 * unreachable) leaves it owed, and any worker's repair applies it once its turn has ended. It never
 * holds up or fails the turn.
 */
import { formatUsd, grantEntryId, MAX_GRANT_MICROS, turnDebitMicros, turnEntryId, type CreditBalance } from "./domain/credits.js";
import type { Usage } from "../sessions/domain/events.js";
import { AppError, validationError } from "../errors.js";
import type { Logger } from "../log.js";
import { Lru } from "../lru.js";
import type { EventLog } from "../sessions/redis/event-log.js";
import type { OwedDebit, OwedDebits } from "./redis/owed-debits.js";
import type { CreditStore } from "./store/credits.js";

/**
 * How long a process trusts a balance it read to let work through: turn starts cost no database read.
 * A refusal is never made on a cached figure (it is read again first), so a grant made by any process
 * is usable at once everywhere; only a balance spent down elsewhere shows within this.
 */
export const BALANCE_CACHE_MS = 1_500;
const CACHED_ORGS = 10_000;

const insufficient = (detail: string) => new AppError("insufficient_credits", `insufficient credits: ${detail}`);
const funded = (b: CreditBalance) => b.metered && b.balanceMicros > 0;
const turnsAllowed = (b: CreditBalance) => !b.metered || b.balanceMicros > 0;

export class CreditService {
  private readonly cache = new Lru<string, { balance: CreditBalance; until: number }>(CACHED_ORGS);

  constructor(
    private readonly store: CreditStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** The balance as the database holds it now (what a person is shown). */
  async balance(orgId: string): Promise<CreditBalance> {
    const head = await this.store.head(orgId);
    return this.remember(orgId, { metered: head !== null, balanceMicros: head?.balanceMicros ?? 0 });
  }

  /**
   * For what needs a credit account (the deployments interface): refuses an organization without one as
   * well as one whose balance is not above zero.
   */
  async requirePositive(orgId: string): Promise<void> {
    const { metered, balanceMicros } = await this.admitting(orgId, funded);
    if (!metered) throw insufficient("the account has no credits (an operator grants them)");
    if (balanceMicros <= 0) throw insufficient(`the account's balance is ${formatUsd(balanceMicros)} USD`);
  }

  /** Before a turn's first model call: refuses only a metered organization whose balance is not above zero. */
  async requireTurnCredits(orgId: string): Promise<void> {
    let balance: CreditBalance;
    try {
      balance = await this.admitting(orgId, turnsAllowed);
    } catch (err) {
      throw new AppError("unavailable", "the credit balance could not be read", {}, err);
    }
    if (balance.metered && balance.balanceMicros <= 0) throw insufficient(`the account's balance is ${formatUsd(balance.balanceMicros)} USD`);
  }

  /** Adds credits under `grantId` (applied once however often it is run); the first grant makes the organization metered. */
  async grant(orgId: string, micros: number, grantId: string): Promise<{ applied: boolean; balanceMicros: number }> {
    if (!Number.isSafeInteger(micros) || micros < 0 || micros > MAX_GRANT_MICROS) throw validationError(`a grant is 0..${formatUsd(MAX_GRANT_MICROS)} USD`);
    const done = (await this.store.apply(orgId, grantEntryId(grantId), "grant", micros, true))!;
    this.remember(orgId, { metered: true, balanceMicros: done.head.balanceMicros });
    return { applied: done.applied, balanceMicros: done.head.balanceMicros };
  }

  /**
   * Takes `micros` once under `entryId` from a metered organization; false when it is unmetered (nothing
   * to debit). The balance may go below zero: what was spent is owed.
   */
  async debit(orgId: string, entryId: string, micros: number): Promise<boolean> {
    const done = await this.store.apply(orgId, entryId, "turn", -micros, false);
    if (done) this.remember(orgId, { metered: true, balanceMicros: done.head.balanceMicros });
    return done !== null;
  }

  /**
   * The cached balance when it lets the work through (at most `BALANCE_CACHE_MS` old), else the balance
   * read now: what refuses is always the database's figure, never an older copy.
   */
  private async admitting(orgId: string, admits: (b: CreditBalance) => boolean): Promise<CreditBalance> {
    const cached = this.cache.get(orgId);
    if (cached && cached.until > this.now() && admits(cached.balance)) return cached.balance;
    return this.balance(orgId);
  }

  private remember(orgId: string, balance: CreditBalance): CreditBalance {
    this.cache.set(orgId, { balance, until: this.now() + BALANCE_CACHE_MS });
    return balance;
  }
}

export class TurnDebits {
  /** Models without a price already warned about: once each per process. */
  private readonly unpriced = new Lru<string, true>(1_000);

  constructor(
    private readonly credits: CreditService,
    private readonly owed: OwedDebits,
    private readonly log: EventLog,
    private readonly logger: Logger,
  ) {}

  /** Records what the turn costs as owed, before its end commits; null when it costs nothing. Never throws. */
  async owe(orgId: string, sessionId: string, turnId: string, usage: Usage): Promise<OwedDebit | null> {
    const { micros, priced } = turnDebitMicros(usage);
    if (!priced && this.unpriced.get(usage.model) === undefined) {
      this.unpriced.set(usage.model, true);
      this.logger.warn("a model without a price: its turns debit no credits", { model: usage.model });
    }
    if (micros === 0) return null;
    const debit: OwedDebit = { entryId: turnEntryId(sessionId, turnId), orgId, sessionId, turnId, micros };
    try {
      await this.owed.owe(debit);
    } catch (err) {
      this.logger.warn("a turn's debit could not be recorded as owed", { sessionId, turnId, err });
    }
    return debit;
  }

  /** Applies an owed debit after its turn's end committed. Never throws: a failure is logged and left to the repair. */
  async settle(debit: OwedDebit): Promise<void> {
    try {
      await this.apply(debit);
    } catch (err) {
      this.logger.warn("a turn's debit was not applied; the repair applies it", { sessionId: debit.sessionId, turnId: debit.turnId, err });
    }
  }

  /** Applies every owed debit whose turn has ended (a turn still active settles its own); returns how many. */
  async repair(): Promise<number> {
    let settled = 0;
    for (const debit of await this.owed.all()) {
      if ((await this.log.state(debit.sessionId)).turn?.id === debit.turnId) continue;
      await this.apply(debit);
      settled++;
    }
    return settled;
  }

  /** Repairs every `intervalMs` until `stop` aborts. */
  repairEvery(intervalMs: number, stop: AbortSignal, onError: (err: unknown) => void): void {
    const timer = setInterval(() => void this.repair().catch(onError), intervalMs);
    timer.unref();
    stop.addEventListener("abort", () => clearInterval(timer), { once: true });
  }

  private async apply(debit: OwedDebit): Promise<void> {
    await this.credits.debit(debit.orgId, debit.entryId, debit.micros);
    await this.owed.paid(debit.entryId);
  }
}
