/**
 * One turn's model/tool loop: rebuild the conversation from the log, call the model (streaming deltas
 * to the live stream, durable output through the transition function), decide each tool call it makes,
 * settle what needs no human, pause when an approval, custom tool result or clarification is needed,
 * and call the model again until it answers without tools. Every write carries the lock's fencing
 * token, so a worker that lost its lock cannot append; the API's concurrent appends (steers,
 * interrupts, queued prompts) are never overwritten, as every step is a compare-and-set.
 */
import { spentUsd } from "../sessions/domain/budgets.js";
import { draft, textBlocks, type Draft } from "../sessions/domain/events.js";
import type { ToolUse } from "../providers/domain/model-types.js";
import { blockingEventIds, stirred, waitsOnHuman, waitsOnThreadsOnly, type Spent } from "../sessions/domain/session-state.js";
import { decideCalls, messageDraft, streamingUseDraft, type TurnContext } from "./domain/tool-calls.js";
import { governingTools, wouldAsk } from "./domain/tool-permissions.js";
import { showsSubjectSkills, turnPrompt } from "./domain/turn-prompt.js";
import { planPause, planSteersConsumed, planStep } from "./domain/turn-plans.js";
import { addedTokens } from "../sessions/domain/usage-total.js";
import { AppError, isAppError, notFound, unavailable } from "../errors.js";
import { unreachableStore } from "../store-errors.js";
import { newId } from "../ids.js";
import type { Logger } from "../log.js";
import { modelCallDuration, secondsSince, turnsStarted } from "../telemetry/metrics.js";
import { isAbort } from "../providers/provider.js";
import { customToolsHandedOut, withModelSpan } from "../telemetry/genai.js";
import { inputProblem } from "../agent-tools/tool-input.js";
import { contextTokens } from "../providers/usage.js";
import type { ProviderRegistry } from "../providers/registry.js";
import type { EventLog } from "../sessions/redis/event-log.js";
import type { Snapshot } from "../sessions/redis/log-entries.js";
import type { LiveStream } from "../streaming/redis/live-stream.js";
import { budgeted, type Budgets } from "../sessions/budgets.js";
import type { CreditService } from "../accounts/credits.js";
import type { McpAccess } from "../vaults/mcp-access.js";
import { change, unchanged, type SessionTransitions } from "../sessions/transitions.js";
import type { VersionDoc } from "../agents/store/agents.js";
import type { SessionStore } from "../sessions/store/sessions.js";
import type { ToolGrantStore } from "./store/tool-grants.js";
import type { AgentVersions } from "./agent-versions.js";
import type { Compactor } from "./compactor.js";
import type { KickoffTimer } from "./kickoff-timer.js";
import { LiveDeltas } from "./live-deltas.js";
import type { SessionFacts } from "../sessions/session-facts.js";
import type { SubjectSkillCache } from "./subject-skills.js";
import type { ToolSettler } from "./tool-settler.js";
import type { Delegations } from "./delegations.js";
import { UNSETTLED } from "./tool-settler.js";
import type { Transcripts } from "./transcripts.js";
import { spentUsage, zeroTokens, type TurnEnding } from "./turn-end.js";

export interface TurnDeps {
  log: EventLog;
  live: LiveStream;
  transitions: SessionTransitions;
  sessions: SessionStore;
  versions: AgentVersions;
  grants: ToolGrantStore;
  providers: ProviderRegistry;
  settler: ToolSettler;
  ending: TurnEnding;
  credits: Pick<CreditService, "requireTurnCredits">;
  budgets: Pick<Budgets, "stopBefore">;
  transcripts: Transcripts;
  compactor: Compactor;
  mcp: McpAccess;
  kickoff: KickoffTimer;
  subjectSkills: SubjectSkillCache;
  /** Reads the child threads of delegation calls. */
  delegations: Pick<Delegations, "look">;
  /** Built-in tools this deployment cannot run, left out of every turn's tools. */
  missingTools: ReadonlySet<string>;
  logger: Logger;
}

const INTERRUPT_POLL_MS = 150;
/** Model calls one turn may make before it is ended as runaway. */
export const MAX_MODEL_CALLS = 25;

/**
 * The errors that stop a worker's turn without ending it: the lock or the session is gone, the session
 * was too contended to record a step, or a store cannot be reached; the turn is resumed from the log (by
 * this worker's retry, or the next lock holder), never ended as failed for it.
 */
const lostTurn = (err: unknown) => isAppError(err, "lock_lost", "not_found", "busy") || unreachableStore(err) !== undefined;

export class TurnRunner {
  constructor(private readonly deps: TurnDeps) {}

  /** Runs the active turn from the state its taking commit left, until it ends (answering the state its end left) or pauses (null). Throws `lock_lost` when the lock is lost. */
  async run(session: SessionFacts, taken: Snapshot, fence: string, lost: AbortSignal): Promise<Snapshot | null> {
    const { log, transitions } = this.deps;
    const initial = taken.state;
    const turnId = initial.turn!.id;
    const abort = new AbortController();
    const onLost = () => abort.abort();
    lost.addEventListener("abort", onLost, { once: true });
    const watcher = setInterval(() => {
      log.state(session._id).then(
        (s) => s.interrupt === turnId && abort.abort(),
        () => undefined,
      );
    }, INTERRUPT_POLL_MS);

    if (!initial.turn!.spent) turnsStarted.inc();
    const spent: Spent = initial.turn!.spent ?? { tokens: zeroTokens(), calls: 0, last: zeroTokens(), contextMax: 0 };
    let tokens = { ...spent.tokens };
    let calls = spent.calls;
    let lastCall = spent.last;
    let contextMax = spent.contextMax || (initial.usage?.context_max ?? 0);
    // The context the next call starts from: the last call's, or at a turn's start the previous turn's.
    let contextUsed = spent.calls > 0 ? contextTokens(spent.last) : (initial.usage?.context_used ?? 0);
    let autoCompaction = true;
    let modelName = "unknown";
    // What the turn's child threads spent: recorded in the state as each answers.
    let threads = spent.threads;
    const usage = () => spentUsage(modelName, { tokens, calls, last: lastCall, contextMax, ...(threads ? { threads } : {}) }, initial.turn!.startedAt);
    const at = (): TurnContext => ({ sessionId: session._id, turnId, now: new Date().toISOString() });
    // The state as last read or committed: the next step's plan starts from it (its commit checks it still holds).
    let current: Snapshot | null = taken;
    const end = (output: Draft[], stop: Parameters<TurnEnding["end"]>[3]) =>
      this.deps.ending.end(session, turnId, output, stop, usage(), { fence, from: current }, threads?.costUsd);
    let streamed = "";
    try {
      const version = await this.deps.versions.get(session.agentId, session.agentVersion);
      if (!version) throw unavailable("the agent version this session records no longer exists");
      modelName = version.modelName;
      // Refused before its first model call, ended at once with the error: a metered organization without credits.
      if (calls === 0) await this.deps.credits.requireTurnCredits(session.orgId);
      const governing = governingTools(version, session.role);
      // MCP tools are listed once per turn (the pool caches lists briefly): a turn offers one stable set.
      const where = { orgId: session.orgId, agentId: session.agentId };
      const mcp = await this.deps.mcp.offer(where, version.mcpServers, governing, abort.signal);
      // The subject's own skills as the turn starts (a change made during the turn shows from the next one),
      // read beside the first call's transcript; a turn that ends before its first call leaves it unread.
      const prompting = (showsSubjectSkills(governing) ? this.deps.subjectSkills.of({ ...where, subjectId: session.subjectId }) : Promise.resolve([])).then(
        (subjectSkills) => turnPrompt({ systemPrompt: version.systemPrompt, skills: version.skills, subjectSkills }, governing, mcp, this.deps.missingTools),
      );
      prompting.catch(() => undefined);
      // The first pass decides from the state the turn was taken with; each later one reads it afresh.
      for (let fresh = false; ; fresh = true) {
        if (fresh) current = await log.snapshot(session._id);
        if (!current) return null;
        const state = current.state;
        if (state.turn?.id !== turnId) return null;
        threads = state.turn.spent?.threads ?? threads;
        if (state.interrupt === turnId) return await end([], { type: "end_turn" });
        if (state.turn.calls.some((c) => UNSETTLED.has(c.state))) {
          const used = await this.deps.settler.settle(session, version, state, fence, abort.signal, lost);
          tokens = addedTokens(tokens, used);
          continue;
        }
        if (state.turn.calls.some(stirred)) {
          await this.deps.delegations.look(session, fence);
          continue;
        }
        if (state.turn.calls.some(waitsOnHuman)) {
          if (await this.pause(session, fence)) return null;
          continue; // answered in the meantime
        }
        // Delegated: the lock is let go; each child thread stirs this turn when it changes.
        if (waitsOnThreadsOnly(state.turn)) return null;
        const overBudget = await this.deps.budgets.stopBefore(budgeted(session), spentUsd(state.usage, usage()));
        if (overBudget) return await end([], overBudget);
        if (calls >= MAX_MODEL_CALLS) return await end([], { type: "error", message: `the turn made ${MAX_MODEL_CALLS} model calls without finishing` });

        if (state.compact || (autoCompaction && this.deps.compactor.due(contextUsed, contextMax))) {
          const request = { trigger: state.compact ? ("manual" as const) : ("auto" as const), keptTurn: turnId, contextBefore: contextUsed, contextMax };
          const done = await this.deps.compactor.compact(session, version.modelName, request, fence, abort.signal);
          if (done.tokens) {
            calls++;
            tokens = addedTokens(tokens, done.tokens);
          }
          // A compaction that left nothing smaller is not tried again in this turn.
          autoCompaction = done.compacted;
          contextUsed = 0;
          continue;
        }
        const { provider, model } = this.deps.providers.resolve(version.modelName);
        const [{ messages, steers }, prompt] = await Promise.all([this.deps.transcripts.forCall(session._id), prompting]);
        streamed = "";
        const deltas = new LiveDeltas(this.deps.live, session._id, fence);
        const callStarted = performance.now();
        const timed = (outcome: string) => modelCallDuration.observe({ outcome }, secondsSince(callStarted));
        // Steers count as delivered once a model call that carried them has answered; an aborted call
        // leaves them for the next one.
        const request = { model, system: prompt.system, messages, tools: prompt.tools, steers: steers.map((s) => s.text), signal: abort.signal };
        const result = await withModelSpan(version.modelName, request, () =>
          provider.call(request, {
            onTextDelta: async (text) => {
              streamed += text;
              // An empty delta (a provider may send one) says nothing, and a content array holds a block at least.
              if (text === "") return;
              await deltas.send(draft(session._id, newId("evt"), { type: "agent.message", content: textBlocks(text), delta: true }, { turnId, now: at().now }));
            },
            onThinkingDelta: async (text) => {
              if (text === "") return;
              await deltas.send(
                draft(session._id, newId("evt"), { type: "agent.thinking", content: textBlocks(text), delta: true }, { turnId, now: at().now }),
              );
            },
            onToolUseStreaming: async (use) => {
              const frame = streamingUseDraft(at(), governing, use);
              if (frame) await deltas.send(frame);
            },
            onThinking: async (text, signature) => {
              await deltas.flush();
              // The signature lets the model's reasoning go back to it within the turn's tool loop.
              const payload = { type: "agent.thinking", content: textBlocks(text), delta: false, ...(signature ? { signature } : {}) };
              const thinking = draft(session._id, newId("evt"), payload, { turnId, status: "complete", now: at().now });
              await transitions.run(session._id, () => change({ drafts: [thinking], state: {}, statuses: [], wake: false }, null), { fence });
            },
          }),
        )
          .then(
            (answer) => (timed(answer.ok ? "ok" : "error"), answer),
            (err: unknown) => {
              timed(isAbort(err) ? "aborted" : "error");
              throw err;
            },
          )
          .finally(() => deltas.flush());
        if (steers.length > 0) {
          const ids = steers.map((s) => s.id);
          await transitions.run(session._id, () => change(planSteersConsumed(ids, at().now), null), { fence });
        }
        calls++;
        tokens = addedTokens(tokens, result.usage);
        lastCall = result.usage;
        contextUsed = contextTokens(result.usage);
        contextMax = result.contextMax;
        if (!result.ok) {
          this.deps.logger.warn("turn failed", { sessionId: session._id, turnId, cause: result.error });
          return await end([], { type: "error", message: result.error });
        }

        const output: Draft[] = result.text ? [messageDraft(at(), result.text)] : [];
        if (result.toolUses.length === 0) return await end(output, { type: "end_turn" });
        await this.step(session, governing, at(), output, result.toolUses, { tokens: { ...tokens }, calls, last: lastCall, contextMax }, fence);
      }
    } catch (err) {
      if (lostTurn(err)) throw err;
      if (isAbort(err)) {
        if (lost.aborted) throw new AppError("lock_lost", "the turn lock was lost");
        // Interrupted: what was streamed so far stays as the turn's message.
        return await end(streamed ? [messageDraft(at(), streamed)] : [], { type: "end_turn" });
      } else if (isAppError(err)) {
        this.deps.logger.warn("turn failed", { sessionId: session._id, turnId, err });
        return await end([], { type: "error", message: err.message });
      } else {
        this.deps.logger.error("turn failed", { sessionId: session._id, turnId, err });
        return await end([], { type: "error", message: "the turn failed unexpectedly" });
      }
    } finally {
      clearInterval(watcher);
      // `lost` outlives the turn (one drain runs many): a listener left on it would pile up.
      lost.removeEventListener("abort", onLost);
    }
  }

  /**
   * Decides each tool call of a model answer and appends the answer with the events the decisions need.
   * `yoloMode` and `always` grants are read from MongoDB only when a call would otherwise ask: yoloMode
   * fresh at each such decision (a caller may have just changed it), grants only when yoloMode is off.
   */
  private async step(
    session: SessionFacts,
    governing: VersionDoc["tools"],
    ctx: TurnContext,
    output: Draft[],
    uses: ToolUse[],
    spent: Spent,
    fence: string,
  ): Promise<void> {
    const read = await this.deps.log.snapshot(session._id);
    if (!read) throw notFound("session");
    const granted = new Set(read.state.grants);
    const asks = uses.some((use) => wouldAsk(governing, use.name, granted));
    const yolo = asks && ((await this.deps.sessions.byId(session._id))?.yoloMode ?? false);
    const always =
      asks && !yolo ? await this.deps.grants.always({ orgId: session.orgId, agentId: session.agentId, subjectId: session.subjectId }) : new Set<string>();
    const { drafts, calls } = decideCalls(ctx, governing, uses, yolo, { session: granted, always }, output, inputProblem);
    await this.deps.kickoff.expect(session._id, calls);
    customToolsHandedOut(calls);
    await this.deps.transitions.run(
      session._id,
      (s) => change(planStep(s, drafts, calls, { ...spent, ...(s.turn?.spent?.threads ? { threads: s.turn.spent.threads } : {}) }), null),
      { fence, from: read },
    );
  }

  /** `session.status_idle` with requires_action; false when everything was answered before it could be written. */
  private async pause(session: SessionFacts, fence: string): Promise<boolean> {
    const { value } = await this.deps.transitions.run(
      session._id,
      (state) =>
        !state.turn || blockingEventIds(state.turn).length === 0 ? unchanged(false) : change(planPause(state, session._id, new Date().toISOString()), true),
      { fence },
    );
    return value;
  }
}
