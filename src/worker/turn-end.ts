/**
 * The end of a turn: a title generated after the first turn, then its output, `session.status_idle` and
 * its usage added to the session's total, in one transition; then its cost debited from the organization's credits.
 */
import { titleFrom } from "./domain/conversation.js";
import { draft, type Draft, type StopReason, type Usage } from "../sessions/domain/events.js";
import { parseModelName } from "../providers/domain/model-names.js";
import type { TokenUsage } from "../providers/domain/model-types.js";
import type { RuntimeState, Spent } from "../sessions/domain/session-state.js";
import { withoutThreadSpend, withThreadSpend } from "../sessions/domain/usage-total.js";
import type { Delegations } from "./delegations.js";
import { needsRecordedUsage, planTurnEnd, type TurnEnd } from "./domain/turn-plans.js";
import { newId } from "../ids.js";
import { usageSnapshot } from "../providers/usage.js";
import type { EventLog } from "../sessions/redis/event-log.js";
import type { Snapshot } from "../sessions/redis/log-entries.js";
import { spentUsd } from "../sessions/domain/budgets.js";
import { budgeted, type Budgets } from "../sessions/budgets.js";
import type { TurnDebits } from "../accounts/credits.js";
import { change, unchanged, type SessionTransitions, type TransitionOptions } from "../sessions/transitions.js";
import type { SessionStore } from "../sessions/store/sessions.js";
import type { StatusProjector } from "../sessions/status-projector.js";
import type { AgentVersions } from "./agent-versions.js";
import type { SessionFacts, SessionFactsCache } from "../sessions/session-facts.js";
import { turnsEnded } from "../telemetry/metrics.js";

export interface TurnEndDeps {
  log: EventLog;
  transitions: SessionTransitions;
  sessions: SessionStore;
  sessionFacts: SessionFactsCache;
  versions: AgentVersions;
  debits: TurnDebits;
  budgets: Pick<Budgets, "record">;
  /** Interrupts the child threads a turn leaves open. */
  delegations: Pick<Delegations, "interruptOpen">;
  /** The record's status writes, which the title's write takes turns with. */
  projector: Pick<StatusProjector, "exclusive">;
}

export const zeroTokens = (): TokenUsage => ({ input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 });

/** A turn's usage from what it has spent (its child threads' included); its latency is wall-clock since it started, waits included. */
export function spentUsage(modelName: string, spent: Spent, startedAt: string): Usage {
  const own = usageSnapshot(modelName, spent.tokens, spent.calls, spent.contextMax, Date.now() - (Date.parse(startedAt) || Date.now()), {
    lastCall: spent.last,
    included: parseModelName(modelName).provider === "mock",
  });
  return spent.threads ? withThreadSpend(own, spent.threads) : own;
}

export class TurnEnding {
  constructor(private readonly deps: TurnEndDeps) {}

  /**
   * Generates a title after the first turn, then appends the end of the turn, which adds its usage to
   * the session's total. A session from before the total was kept in its state reads its record's first.
   * `threadsUsd`: what the turn's child threads cost, reported in `usage` but debited by the threads.
   * Answers the state as the ending's commit left it (as read, when the turn had ended already).
   */
  async end(
    session: SessionFacts,
    turnId: string,
    output: Draft[],
    stop: StopReason,
    usage: Usage | undefined,
    commit: Pick<TransitionOptions, "fence" | "from">,
    threadsUsd = 0,
  ): Promise<Snapshot> {
    const title = await this.generatedTitle(session, turnId, stop);
    const ending: TurnEnd = { output, stop, ...(usage ? { usage } : {}) };
    // Owed before the commit, applied after it: a worker stopping in between leaves it to the repair.
    // Only the turn's own spending: its child threads debit theirs.
    const debit = usage ? await this.deps.debits.owe(session.orgId, session._id, turnId, withoutThreadSpend(usage, threadsUsd)) : null;
    let total: Usage | null | undefined;
    let ended: RuntimeState | undefined;
    let left: Snapshot;
    for (;;) {
      const { value, known } = await this.deps.transitions.run(
        session._id,
        (state) => {
          if (state.turn?.id !== turnId) return unchanged("ended");
          if (needsRecordedUsage(state, ending)) return unchanged("needs the record's usage");
          const plan = planTurnEnd(state, session._id, ending, new Date().toISOString());
          total = plan.state.usage;
          ended = state;
          return change({ ...plan, drafts: [...plan.drafts, ...title] }, "ended");
        },
        commit,
      );
      left = known;
      if (value === "ended") break;
      ending.recorded = (await this.deps.sessions.byId(session._id))?.usage ?? null;
    }
    // After the commit, from the state it ended: a worker stopping in between leaves those threads to finish unread.
    if (ended) await this.deps.delegations.interruptOpen(ended);
    turnsEnded.inc({ stop_reason: stop.type });
    if (debit) await this.deps.debits.settle(debit);
    // After the commit: a worker stopping before it leaves this spend to the session's next report.
    if (usage?.cost_usd) await this.deps.budgets.record(budgeted(session), spentUsd(total));
    return left;
  }

  /**
   * Ends a turn without running it further (interrupted while it waited for the human, or abandoned
   * after repeated worker failures). The model calls it made were spent and are reported, on the
   * terminal event and in the session's aggregate.
   */
  async endEarly(session: SessionFacts, state: RuntimeState, stop: StopReason, fence: string): Promise<Snapshot> {
    const turn = state.turn!;
    let usage: Usage | undefined;
    if (turn.spent && turn.spent.calls > 0) {
      const version = await this.deps.versions.get(session.agentId, session.agentVersion);
      usage = spentUsage(version?.modelName ?? "unknown", turn.spent, turn.startedAt);
    }
    return this.end(session, turn.id, [], stop, usage, { fence }, turn.spent?.threads?.costUsd);
  }

  /** `session.title_updated`, when this turn gave an untitled session its title (the record's write decides). */
  private async generatedTitle(session: SessionFacts, turnId: string, stop: StopReason): Promise<Draft[]> {
    const { sessionFacts } = this.deps;
    if (!sessionFacts.mayBeUntitled(session._id) || stop.type !== "end_turn") return [];
    const firstPrompt = await this.deps.log.first(session._id, 50, (e) => e.type === "user.message");
    const title = titleFrom(firstPrompt ? String((firstPrompt.payload.content as { text: string }[])[0]?.text ?? "") : "");
    const generated = await this.deps.projector.exclusive(session._id, () => this.deps.sessions.setGeneratedTitle(session._id, title));
    sessionFacts.titled(session._id); // ours now, or the record had one already
    if (!generated) return [];
    return [draft(session._id, newId("evt"), { type: "session.title_updated", title }, { turnId, status: "complete", now: new Date().toISOString() })];
  }
}
