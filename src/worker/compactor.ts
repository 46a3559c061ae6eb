/**
 * Context compaction on the worker: summarizes the conversation before the running turn (all of it,
 * between turns) with the session's model and appends `session.compacted`, which the transcript fold
 * then starts from (`src/worker/domain/compaction.ts`). It runs under the session's lock, at a turn's model
 * call boundary or for an idle session that asked for it, so no turn can end while its summary is made;
 * a turn that began meanwhile makes the plan refuse, and the summary is dropped unsent.
 */
import {
  compactionDue,
  COMPACTION_SYSTEM,
  planCompacted,
  planCompactionUnused,
  summaryRequest,
  type CompactedPayload,
  type CompactionTrigger,
} from "./domain/compaction.js";
import type { Usage } from "../sessions/domain/events.js";
import type { RuntimeState } from "../sessions/domain/session-state.js";
import type { TokenUsage } from "../providers/domain/model-types.js";
import type { Logger } from "../log.js";
import { isAbort } from "../providers/provider.js";
import type { ProviderRegistry } from "../providers/registry.js";
import { change, unchanged, type SessionTransitions } from "../sessions/transitions.js";
import type { AgentVersions } from "./agent-versions.js";
import type { SessionFacts } from "../sessions/session-facts.js";
import type { Transcripts } from "./transcripts.js";
import { spentUsage, zeroTokens } from "./turn-end.js";

/** Fewer messages than this before the kept turn leave nothing worth a summary. */
const MIN_MESSAGES = 2;

export interface CompactorDeps {
  transcripts: Transcripts;
  providers: ProviderRegistry;
  versions: AgentVersions;
  transitions: SessionTransitions;
  logger: Logger;
  /** Share of the model's window (percent) past which a turn compacts before its next call; 0: never on its own. */
  thresholdPercent: number;
}

export interface CompactionRequest {
  trigger: CompactionTrigger;
  /** The running turn, whose messages stay as they are; null between turns. */
  keptTurn: string | null;
  contextBefore: number;
  contextMax: number;
}

export class Compactor {
  constructor(private readonly deps: CompactorDeps) {}

  /** Whether a turn whose last call held `contextUsed` of `contextMax` tokens compacts before its next call. */
  due(contextUsed: number, contextMax: number): boolean {
    return this.deps.thresholdPercent > 0 && compactionDue(contextUsed, contextMax, this.deps.thresholdPercent);
  }

  /**
   * Summarizes and appends the event. Returns the summarizing call's tokens (null: no call was made) and
   * whether the event was appended. A failed summary drops a requested compaction: the conversation
   * goes on as it was, which is what the model would see had none been asked for.
   */
  async compact(
    session: SessionFacts,
    modelName: string,
    request: CompactionRequest,
    fence: string,
    signal: AbortSignal,
  ): Promise<{ tokens: TokenUsage | null; compacted: boolean }> {
    const { transcripts, providers, logger } = this.deps;
    const { messages, cut } = await transcripts.forCall(session._id);
    const older = messages.slice(0, request.keptTurn === null ? cut.all : cut.keepingTurn);
    if (older.length < MIN_MESSAGES) {
      await this.drop(session._id, fence);
      return { tokens: null, compacted: false };
    }
    const startedAt = new Date().toISOString();
    const { provider, model } = providers.resolve(modelName);
    const quiet = async () => undefined;
    const result = await provider.call(
      { model, system: COMPACTION_SYSTEM, messages: summaryRequest(older), tools: [], steers: [], signal },
      { onTextDelta: quiet, onThinking: quiet },
    );
    // Between turns the call is the session's own spending, added to its total whatever comes of it; in
    // a turn, the turn's.
    const usage =
      request.keptTurn === null
        ? spentUsage(
            modelName,
            { tokens: result.usage, calls: 1, last: { ...zeroTokens(), output: result.usage.output }, contextMax: result.contextMax },
            startedAt,
          )
        : null;
    const summary = result.ok ? result.text.trim() : "";
    if (!summary) {
      logger.warn("compaction failed; the conversation goes on uncompacted", {
        sessionId: session._id,
        error: result.ok ? "the summary was empty" : result.error,
      });
      await this.drop(session._id, fence, usage);
      return { tokens: result.usage, compacted: false };
    }
    const payload: CompactedPayload = {
      type: "session.compacted",
      trigger: request.trigger,
      summary,
      kept_turn: request.keptTurn,
      messages_summarized: older.length,
      context_before: request.contextBefore,
      context_max: request.contextMax || result.contextMax,
    };
    // Appended, its context is the summary alone (what the next turn starts from); refused (a turn began
    // meanwhile), the spending is still counted and the request left for that turn.
    const { value: compacted } = await this.deps.transitions.run(
      session._id,
      (state) => {
        const plan = planCompacted(state, session._id, payload, new Date().toISOString(), usage);
        if (plan) return change(plan, true);
        const spent = planCompactionUnused(state, usage, false);
        return spent ? change(spent, false) : unchanged(false);
      },
      { fence },
    );
    return { tokens: result.usage, compacted };
  }

  /** A requested compaction of an idle session; returns quietly when the lock is lost or the worker stops. */
  async compactIdle(session: SessionFacts, state: RuntimeState, fence: string, lost: AbortSignal): Promise<void> {
    const version = await this.deps.versions.get(session.agentId, session.agentVersion);
    if (!version) {
      await this.drop(session._id, fence);
      return;
    }
    const used = state.usage?.context_used ?? 0;
    try {
      await this.compact(
        session,
        version.modelName,
        { trigger: "manual", keptTurn: null, contextBefore: used, contextMax: state.usage?.context_max ?? 0 },
        fence,
        lost,
      );
    } catch (err) {
      if (!isAbort(err)) throw err;
    }
  }

  private async drop(sessionId: string, fence: string, usage: Usage | null = null): Promise<void> {
    await this.deps.transitions.run(
      sessionId,
      (s) => {
        const plan = planCompactionUnused(s, usage, true);
        return plan ? change(plan, null) : unchanged(null);
      },
      { fence },
    );
  }
}
