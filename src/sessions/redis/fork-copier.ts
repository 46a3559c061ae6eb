/**
 * A fork's writes to the new session's keys: one script per page of copied history
 * (`fork-copy-4.lua`), the keys expiring until the last page writes the state and keeps them.
 */
import type { Usage } from "../domain/events.js";
import type { ForkEntry } from "../domain/fork-plan.js";
import { AppError } from "../../errors.js";
import { REFUSED, runScript, type RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";
import { LARGE_EVENT_BYTES } from "./large-events.js";
import { IDENTITY_FIELDS, type SessionIdentity } from "./log-entries.js";

/** How long a copy's keys outlive its last page while it is not done: a copy that died is gone this long after. */
export const FORK_COPY_TTL_MS = 5 * 60_000;

/** The runtime state a fork starts from: idle, no turn, no grants, with its identity and its usage total. */
export interface ForkState {
  identity: SessionIdentity;
  usage: Usage | null;
}

export class ForkCopier {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /**
   * Appends a page whose first sequence is `first` (1: the first page, which clears leftovers of an
   * earlier attempt under the same id); `last`: the state to write with the last page, which keeps the keys.
   */
  async page(sessionId: string, first: number, entries: readonly ForkEntry[], last: ForkState | null): Promise<void> {
    const k = this.keys;
    const keys = [k.sessionLog(sessionId), k.sessionSeq(sessionId), k.sessionLarge(sessionId), k.sessionState(sessionId)];
    const args: (string | number)[] = [first, FORK_COPY_TTL_MS, LARGE_EVENT_BYTES, last ? "last" : "more", entries.length];
    for (const e of entries) args.push(e.sequence, e.type, e.turn, e.env);
    if (last) {
      const { orgId, agentId, subjectId } = last.identity;
      const state = {
        v: "0",
        usage: last.usage ? JSON.stringify(last.usage) : "",
        [IDENTITY_FIELDS.orgId]: orgId,
        [IDENTITY_FIELDS.agentId]: agentId,
        [IDENTITY_FIELDS.subjectId]: subjectId,
      };
      const pairs = Object.entries(state);
      args.push(pairs.length, ...pairs.flat());
    }
    const reply = (await runScript(this.redis, "forkCopy", keys, args)) as number[];
    if (reply[0] === REFUSED.MISSING) throw new AppError("busy", "the fork's copy took too long and its first pages expired; retry the fork");
  }
}
