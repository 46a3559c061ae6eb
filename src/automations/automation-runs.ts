/**
 * Running an automation's occurrence: its fresh session for the subject (a conversation point, like any
 * session) and the prompt sent into it. Both steps are done once however often a run is retried: the
 * session's id is the run's, and the prompt is not sent to a session that has it. A refusal that a retry
 * cannot change (allowance spent, agent archived or deleted, a skill no longer configured) is the run's
 * failure, with its reason; anything else (a store unreachable) is thrown, for the run to be retried.
 */
import type { OccurrenceOutcome } from "./domain/automations.js";
import { invalidState, isAppError, notFound, type AppError } from "../errors.js";
import type { EventLog } from "../sessions/redis/event-log.js";
import type { AgentStore } from "../agents/store/agents.js";
import type { AutomationDoc } from "./store/automations.js";
import type { RunDoc } from "./store/automation-runs.js";
import type { EventService } from "../sessions/events.js";
import type { SessionService } from "../sessions/sessions.js";
import { withSpan } from "../telemetry/tracing.js";

/** The refusals a run records as its failure. */
const FINAL = ["rate_limited", "invalid_state", "not_found", "validation_error"] as const;

/** The prompt as the session's first message: the skills the automation names are named to the model after it. */
export function promptMessage(a: Pick<AutomationDoc, "prompt" | "skills" | "_id">, runId: string) {
  const content = [{ type: "text" as const, text: a.prompt }];
  if (a.skills.length > 0) content.push({ type: "text", text: `Apply these skills to this task: ${a.skills.join(", ")}.` });
  return { type: "user.message" as const, content, metadata: { automationId: a._id, automationRunId: runId } };
}

/** Whether a deployment lets its automations run now (its `automations` feature); the refusal when not. */
export interface AutomationGate {
  refusal(deploymentId: string): Promise<AppError | null>;
}

export class AutomationRunner {
  constructor(
    private readonly agents: AgentStore,
    private readonly sessions: SessionService,
    private readonly events: EventService,
    private readonly log: EventLog,
    private readonly gate: AutomationGate,
  ) {}

  /**
   * The run's outcome; a failure carries the refusal that caused it, for a caller that answers with it.
   * `fresh`: the run was just opened, so neither its session nor its prompt can exist yet (no reads for them).
   */
  execute(a: AutomationDoc, run: RunDoc, fresh: boolean): Promise<{ outcome: OccurrenceOutcome; refusal?: AppError }> {
    const attributes = { "agent_sessions.automation.id": a._id, "agent_sessions.automation.run.id": run._id, "session.id": run.sessionId };
    return withSpan("automation.run", attributes, async (span) => {
      const done = await this.executeRun(a, run, fresh);
      span.setAttribute("agent_sessions.automation.run.status", done.outcome.status);
      return done;
    });
  }

  private async executeRun(a: AutomationDoc, run: RunDoc, fresh: boolean): Promise<{ outcome: OccurrenceOutcome; refusal?: AppError }> {
    const refused = (refusal: AppError, sessionId: string | null = null) => ({
      outcome: { status: "failed" as const, sessionId, error: refusal.message },
      refusal,
    });
    const closed = a.deploymentId ? await this.gate.refusal(a.deploymentId) : null;
    if (closed) return refused(closed);
    // The session's creation refuses an archived or deleted agent; only named skills need it read first.
    if (a.skills.length > 0) {
      const agent = await this.agents.get(a.orgId, a.agentId);
      if (!agent) return refused(notFound("agent"));
      const gone = a.skills.filter((name) => !agent.current.skills.some((s) => s.name === name));
      if (gone.length > 0) return refused(invalidState(`skills no longer configured on the agent: ${gone.join(", ")}`));
    }
    let created = false;
    try {
      const body = {
        agentId: a.agentId,
        subjectId: a.subjectId,
        metadata: { automationId: a._id, automationRunId: run._id },
        ...(a.name ? { title: a.name } : {}),
      };
      await this.sessions.createOnce(a.orgId, body, run.sessionId, !fresh);
      created = true;
      await this.promptOnce(a, run, !fresh);
      return { outcome: { status: "succeeded", sessionId: run.sessionId } };
    } catch (err) {
      if (!isAppError(err, ...FINAL)) throw err;
      return refused(err, created ? run.sessionId : null);
    }
  }

  private async prompted(sessionId: string): Promise<boolean> {
    return (await this.log.first(sessionId, 20, (e) => e.type === "user.message")) !== null;
  }

  private async promptOnce(a: AutomationDoc, run: RunDoc, mayHaveIt: boolean): Promise<void> {
    if (mayHaveIt && (await this.prompted(run.sessionId))) return;
    try {
      await this.events.post(a.orgId, run.sessionId, { events: [promptMessage(a, run._id)] }, Promise.resolve());
    } catch (err) {
      // A concurrent attempt's prompt started the turn first: the session is running, and prompted.
      if (isAppError(err, "invalid_state") && (await this.prompted(run.sessionId))) return;
      throw err;
    }
  }
}
