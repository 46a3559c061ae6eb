/**
 * Spend budgets, both kinds in one place: a session's own limit (its record's `budgetUsd`) and its
 * agent's limit per subject, across all of the subject's sessions with that agent (the agent's
 * `subjectBudgetUsd`, against `SubjectSpend`). The API refuses a send that would start a turn past
 * either; the worker checks both before each model call and reports the session's spend as it grows.
 */
import { budgetReached } from "./domain/budgets.js";
import type { StopReason } from "./domain/events.js";
import { AppError } from "../errors.js";
import type { AgentLimits, AgentLimitsCache } from "../agents/redis/agent-limits-cache.js";
import type { SpendScope, SubjectSpend } from "./redis/subject-spend.js";
import type { AgentStore } from "../agents/store/agents.js";
import type { SessionDoc, SessionStore } from "./store/sessions.js";

/** The session as a budget sees it: its own id and its subject's scope. */
export interface BudgetedSession extends SpendScope {
  sessionId: string;
}

export class Budgets {
  constructor(
    private readonly sessions: Pick<SessionStore, "byId">,
    private readonly agents: Pick<AgentStore, "get">,
    private readonly cache: AgentLimitsCache,
    private readonly spend: SubjectSpend,
  ) {}

  /** The agent's allowances and subject budget, from the shared cache (null: no such agent). */
  limits(orgId: string, agentId: string): Promise<AgentLimits | null> {
    return this.cache.get(agentId, async () => {
      const agent = await this.agents.get(orgId, agentId);
      return agent && { ...agent.rateLimits, subjectBudgetUsd: agent.subjectBudgetUsd ?? null };
    });
  }

  /**
   * Refuses a batch that would start a turn once either budget is reached. The session's record is read
   * only for a session that has spent something, the subject's total only when its agent sets a limit
   * (reporting the session's spend on the way, which heals a report a worker's crash lost): a send under
   * no budget costs no read.
   */
  async refuseTurn(session: BudgetedSession, spent: number, limits: AgentLimits | null): Promise<void> {
    const subjectLimit = limits?.subjectBudgetUsd ?? null;
    const [record, total] = await Promise.all([
      spent > 0 ? this.sessions.byId(session.sessionId) : null,
      subjectLimit === null ? 0 : this.spend.record(session, session.sessionId, spent),
    ]);
    const limit = record?.budgetUsd;
    if (budgetReached(limit, spent)) {
      throw new AppError("budget_exceeded", `the session has spent ${spent} USD of its ${limit} USD budget; raise budget.limitUsd to send more messages`);
    }
    if (budgetReached(subjectLimit, total)) {
      throw new AppError(
        "budget_exceeded",
        `the subject has spent ${total} USD of its ${subjectLimit} USD budget with this agent; raise the agent's subjectBudget.limitUsd to send more messages`,
      );
    }
  }

  /**
   * The stop for a turn about to call its model when the session's spend (ended turns' and this turn's
   * so far) or its subject's has reached a budget, both read fresh (a caller may have just raised one);
   * null otherwise. Records the session's spend on the way, so its subject's total includes this turn.
   */
  async stopBefore(session: BudgetedSession, spent: number): Promise<StopReason | null> {
    if (spent <= 0) return null;
    const [record, limits, total] = await Promise.all([
      this.sessions.byId(session.sessionId),
      this.limits(session.orgId, session.agentId),
      this.spend.record(session, session.sessionId, spent),
    ]);
    const limit = record?.budgetUsd;
    if (budgetReached(limit, spent)) return { type: "budget_exceeded", scope: "session", limit_usd: limit!, spent_usd: spent };
    const subjectLimit = limits?.subjectBudgetUsd ?? null;
    if (budgetReached(subjectLimit, total)) return { type: "budget_exceeded", scope: "subject", limit_usd: subjectLimit!, spent_usd: total };
    return null;
  }

  /** Reports the session's spend after a turn's end, so its subject's total has the turn's last call. */
  async record(session: BudgetedSession, spent: number): Promise<void> {
    if (spent > 0) await this.spend.record(session, session.sessionId, spent);
  }

  /** What the subject has spent with the agent. */
  spentBy(scope: SpendScope): Promise<number> {
    return this.spend.total(scope);
  }
}

/** A session record's budget scope. */
export function budgeted(session: Pick<SessionDoc, "_id" | "orgId" | "agentId" | "subjectId">): BudgetedSession {
  return { sessionId: session._id, orgId: session.orgId, agentId: session.agentId, subjectId: session.subjectId };
}
