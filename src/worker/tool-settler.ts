/**
 * Settles the tool calls of a model answer that need no more from the human: in the order the model
 * asked, approved calls are put in motion, denied ones get their denial, and executing ones are run.
 * Each transition is its own append, so a worker that dies mid-way resumes at the right step (a tool that
 * was running is run again: execution is at least once).
 */
import { attachmentNamed } from "../sessions/domain/attachments.js";
import type { Draft } from "../sessions/domain/events.js";
import type { TokenUsage } from "../providers/domain/model-types.js";
import type { RuntimeState, ToolCall } from "../sessions/domain/session-state.js";
import { governingTools } from "./domain/tool-permissions.js";
import { denialDraft, resultDraft, useEvents, type TurnContext } from "./domain/tool-calls.js";
import { planStep, withToolTokens } from "./domain/turn-plans.js";
import { addedTokens } from "../sessions/domain/usage-total.js";
import { AppError } from "../errors.js";
import type { Logger } from "../log.js";
import { secondsSince, toolCallDuration, toolLabel } from "../telemetry/metrics.js";
import { isAbort } from "../providers/provider.js";
import { withToolSpan } from "../telemetry/genai.js";
import type { EventLog } from "../sessions/redis/event-log.js";
import type { McpAccess } from "../vaults/mcp-access.js";
import { change, type SessionTransitions } from "../sessions/transitions.js";
import type { VersionDoc } from "../agents/store/agents.js";
import type { PastConversations } from "../sessions/store/past-conversations.js";
import type { ToolGrantStore } from "./store/tool-grants.js";
import type { BuiltinTools, ToolOutcome } from "../agent-tools/builtin.js";
import type { KickoffTimer } from "./kickoff-timer.js";
import type { Placements } from "./placement.js";
import type { SubjectSkillCache } from "./subject-skills.js";
import type { SessionFacts } from "../sessions/session-facts.js";
import { zeroTokens } from "./turn-end.js";
import type { Delegations } from "./delegations.js";
import { isDelegationTool } from "../agent-tools/domain/toolsets.js";

export interface ToolSettlerDeps {
  transitions: SessionTransitions;
  tools: BuiltinTools;
  grants: ToolGrantStore;
  past: PastConversations;
  /** Where each session's tools run (its workspace, user, isolation and variables). */
  placements: Placements;
  mcp: McpAccess;
  kickoff: KickoffTimer;
  subjectSkills: SubjectSkillCache;
  /** The session's log, where vision_analyze finds the attachments it names (compacted away or not). */
  log: EventLog;
  /** Opens the child threads of delegation calls. */
  delegations: Pick<Delegations, "open">;
  logger: Logger;
}

/** Calls the worker settles without the human. */
export const UNSETTLED: ReadonlySet<ToolCall["state"]> = new Set(["approved", "denied", "executing"]);

export class ToolSettler {
  constructor(private readonly deps: ToolSettlerDeps) {}

  /**
   * Returns the tokens the tools' own model calls spent (already added to the turn's `spent`). Throws
   * `lock_lost` when the worker stops (shutdown or lost lock) while a tool runs: the call stays `executing`.
   */
  async settle(session: SessionFacts, version: VersionDoc, state: RuntimeState, fence: string, signal: AbortSignal, lost: AbortSignal): Promise<TokenUsage> {
    const turnId = state.turn!.id;
    let spent = zeroTokens();
    const at = (): TurnContext => ({ sessionId: session._id, turnId, now: new Date().toISOString() });
    const save = (call: ToolCall, drafts: Draft[], usage?: TokenUsage) =>
      this.deps.transitions.run(
        session._id,
        (s) =>
          change(
            planStep(
              s,
              drafts,
              s.turn!.calls.map((c) => (c.id === call.id ? call : c)),
              usage && withToolTokens(s.turn!.spent, usage),
            ),
            null,
          ),
        { fence },
      );
    for (const original of state.turn!.calls.filter((c) => UNSETTLED.has(c.state))) {
      let call: ToolCall = { ...original };
      if (call.state === "denied") {
        call.state = "done";
        await save(call, [denialDraft(at(), call, call.reason ?? "denied")]);
        continue;
      }
      if (call.state === "approved") {
        if (call.scope === "always") await this.deps.grants.grant({ orgId: session.orgId, agentId: session.agentId, subjectId: session.subjectId }, call.name);
        const started = useEvents(at(), call);
        call = started.call;
        await this.deps.kickoff.expect(session._id, [call]);
        await save(call, started.drafts);
      }
      if (call.state === "executing" && isDelegationTool(call.name)) {
        await this.deps.delegations.open(session, version, await this.deps.log.state(session._id), call, at(), fence);
        continue;
      }
      if (call.state === "executing") {
        const started = performance.now();
        const outcome = await withToolSpan(call, () => this.execute(session, version, call, turnId, signal));
        toolCallDuration.observe({ tool: toolLabel(call.name, call.kind !== "mcp"), outcome: outcome.ok ? "ok" : "error" }, secondsSince(started));
        // Stopped because the worker is shutting down or lost its lock, not because the tool ended: the
        // call stays `executing`, and the worker that takes the turn over runs it again.
        if (lost.aborted) throw new AppError("lock_lost", "the worker stopped while a tool ran");
        call.state = "done";
        await save(call, [resultDraft(at(), call, outcome.ok, outcome.text)], outcome.usage);
        if (outcome.usage) spent = addedTokens(spent, outcome.usage);
      }
    }
    return spent;
  }

  private async execute(session: SessionFacts, version: VersionDoc, call: ToolCall, turnId: string, signal: AbortSignal): Promise<ToolOutcome> {
    try {
      if (call.kind === "mcp") {
        const owner = { orgId: session.orgId, agentId: session.agentId };
        return await this.deps.mcp.call(owner, version.mcpServers, governingTools(version, session.role), call.name, call.input, signal);
      }
      const place = await this.deps.placements.of(session);
      if (!place) return { ok: false, text: `the tool ${call.name} cannot run: the deployment this thread belongs to is being deleted` };
      return await this.deps.tools.run(call.name, call.input, {
        ...place,
        orgId: session.orgId,
        agentId: session.agentId,
        subjectId: session.subjectId,
        sessionId: session._id,
        skills: version.skills,
        subjectSkills: () => this.deps.subjectSkills.of({ orgId: session.orgId, agentId: session.agentId, subjectId: session.subjectId }),
        signal,
        otherConversations: () =>
          this.deps.past.of({ orgId: session.orgId, agentId: session.agentId, subjectId: session.subjectId, exceptSessionId: session._id }),
        modelName: version.modelName,
        attachment: async (name) => {
          const message = await this.deps.log.findNewest(session._id, (e) => attachmentNamed(e, name) !== undefined);
          return message ? attachmentNamed(message, name) : undefined;
        },
      });
    } catch (err) {
      if (isAbort(err)) throw err;
      this.deps.logger.warn("tool failed", { sessionId: session._id, turnId, tool: call.name, err });
      return { ok: false, text: `the tool ${call.name} failed unexpectedly` };
    }
  }
}
