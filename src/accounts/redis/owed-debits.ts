/**
 * Turn debits owed to the credit ledger: a hash of entry id → the debit, written before the turn's end
 * commits and removed once the ledger has it. A debit whose writer stopped (a crash, MongoDB down) stays
 * here for the repair; one whose turn never ended is still found with its turn active, and left alone.
 */
import type { RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";

export interface OwedDebit {
  entryId: string;
  orgId: string;
  sessionId: string;
  turnId: string;
  micros: number;
}

export class OwedDebits {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** Records (or replaces: a later end of the same turn knows its full cost) the debit. */
  async owe(debit: OwedDebit): Promise<void> {
    await this.redis.hset(this.keys.owedDebits(), debit.entryId, JSON.stringify(debit));
  }

  async paid(entryId: string): Promise<void> {
    await this.redis.hdel(this.keys.owedDebits(), entryId);
  }

  /** Every debit still owed: those being applied right now and those left by a failure. */
  async all(): Promise<OwedDebit[]> {
    const fields = await this.redis.hgetall(this.keys.owedDebits());
    return Object.values(fields).map((json) => JSON.parse(json) as OwedDebit);
  }
}
