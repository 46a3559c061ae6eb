/**
 * The custom tool kickoff: a custom tool call that gets no result (not even `running`) within the
 * kickoff time fails with a tool error and the turn goes on. Deadlines are registered before the
 * commit that makes a call wait (`src/worker/redis/kickoffs.ts`); every worker's sweep expires the due ones.
 * Several sweeps taking one deadline at once are harmless: the plan is a compare-and-set, and the
 * second finds nothing due.
 */
import type { ToolCall } from "../sessions/domain/session-state.js";
import { planKickoffExpired } from "./domain/turn-plans.js";
import { isAppError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Kickoffs } from "./redis/kickoffs.js";
import { change, unchanged, type SessionTransitions } from "../sessions/transitions.js";

export class KickoffTimer {
  constructor(
    private readonly kickoffs: Kickoffs,
    private readonly transitions: SessionTransitions,
    readonly kickoffMs: number,
    private readonly logger: Logger,
  ) {}

  /** Registers the deadlines of the calls that will wait for a custom result; call before committing them. */
  async expect(sessionId: string, calls: ToolCall[]): Promise<void> {
    for (const call of calls) {
      if (call.state === "custom" && call.customSince) await this.kickoffs.expect(sessionId, [call.id], Date.parse(call.customSince) + this.kickoffMs);
    }
  }

  /** Fails the due calls (at most `limit` deadlines); a deadline stays when its session could not be changed now. */
  async expire(limit: number): Promise<void> {
    const due = await this.kickoffs.due(Date.now(), limit);
    const handled: string[] = [];
    for (const sessionId of new Set(due.map((d) => d.sessionId))) {
      try {
        await this.transitions.run(sessionId, (state) => {
          const plan = planKickoffExpired(state, sessionId, new Date().toISOString(), this.kickoffMs);
          return plan ? change(plan, null) : unchanged(null);
        });
      } catch (err) {
        // A deleted session has nothing left to expire; anything else is tried again at the next sweep.
        if (!isAppError(err, "not_found")) {
          this.logger.warn("expiring a custom tool kickoff failed; retrying at the next sweep", { sessionId, err });
          continue;
        }
      }
      handled.push(...due.filter((d) => d.sessionId === sessionId).map((d) => d.member));
    }
    await this.kickoffs.done(handled);
  }
}
