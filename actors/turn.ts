/**
 * One turn: rebuild the conversation from the log, call the model (streaming deltas to the live
 * stream, durable output to the log), then end the turn atomically. Every write carries the lock's
 * fencing token, so a worker that lost its lock cannot append.
 */
import { conversation, steerTexts, titleFrom } from "../src/domain/conversation.js";
import { draft, type Draft, type Envelope, type StopReason, type Usage } from "../src/domain/events.js";
import { planSteersConsumed, planTurnEnd, type RuntimeState } from "../src/domain/session-state.js";
import { newId } from "../src/ids.js";
import type { Logger } from "../src/log.js";
import { isAbort, ProviderUnavailable, type ModelResult, type TokenUsage } from "../src/models/provider.js";
import type { ProviderRegistry } from "../src/models/registry.js";
import type { EventLog } from "../src/redis/event-log.js";
import type { AgentStore } from "../src/store/agents.js";
import type { SessionDoc, SessionStore } from "../src/store/sessions.js";

export interface TurnDeps {
  log: EventLog;
  sessions: SessionStore;
  agents: AgentStore;
  providers: ProviderRegistry;
  logger: Logger;
}

export class Fenced extends Error {
  constructor() {
    super("the turn lock was lost");
  }
}

const INTERRUPT_POLL_MS = 150;

function usageOf(model: string, tokens: TokenUsage, contextMax: number, latencyMs: number): Usage {
  const total = tokens.input + tokens.output + tokens.cache_read + tokens.cache_write;
  const contextUsed = tokens.input + tokens.cache_read + tokens.cache_write + tokens.output;
  return {
    model,
    ...tokens,
    total,
    calls: 1,
    context_used: contextUsed,
    context_max: contextMax,
    context_percent: contextMax > 0 ? Math.min(100, Math.round((contextUsed * 100) / contextMax)) : 0,
    cost_usd: 0,
    cost_status: "included",
    last_turn_latency_ms: latencyMs,
    latency_ms: latencyMs,
  };
}

export class TurnRunner {
  constructor(private readonly deps: TurnDeps) {}

  /** Runs the active turn of `state` to its end. Throws `Fenced` when the lock is lost. */
  async run(session: SessionDoc, state: RuntimeState, fence: string, lost: AbortSignal): Promise<void> {
    const { log } = this.deps;
    const turn = state.turn!;
    const started = Date.now();
    const now = () => new Date().toISOString();
    const abort = new AbortController();
    lost.addEventListener("abort", () => abort.abort(), { once: true });
    const watcher = setInterval(() => {
      log.state(session._id).then(
        (s) => s.interrupt === turn.id && abort.abort(),
        () => undefined,
      );
    }, INTERRUPT_POLL_MS);

    const output: Draft[] = [];
    let streamed = "";
    let stop: StopReason = { type: "end_turn" };
    let usage: Usage | undefined;
    let modelName = "unknown";
    try {
      const version = await this.deps.agents.getVersionById(session.agentId, session.agentVersion);
      if (!version) throw new ProviderUnavailable("the agent version this session records no longer exists");
      modelName = version.modelName;
      const { provider, model } = this.deps.providers.resolve(version.modelName);
      const history = await log.all(session._id);
      const steers = steerTexts(history, state.steers);
      let result: ModelResult;
      try {
        result = await provider.call(
          { model, system: version.systemPrompt, messages: conversation(history), tools: [], steers: steers.map((s) => s.text), signal: abort.signal },
          {
            onTextDelta: async (text) => {
              streamed += text;
              const delta = draft(session._id, newId("evt"), { type: "agent.message", content: [{ type: "text", text }], delta: true }, { turnId: turn.id, now: now() });
              if (!(await log.appendLive(session._id, fence, delta))) throw new Fenced();
            },
            onThinking: async (text) => {
              const thinking = draft(session._id, newId("evt"), { type: "agent.thinking", content: [{ type: "text", text }], delta: false }, { turnId: turn.id, status: "complete", now: now() });
              const applied = await log.apply(session._id, { drafts: [thinking], state: {}, statuses: [], wake: false }, null, fence);
              if (!applied.ok) throw new Fenced();
            },
          },
        );
      } finally {
        if (steers.length > 0) await this.consumeSteers(session._id, steers.map((s) => s.id), fence);
      }
      usage = usageOf(version.modelName, result.usage, result.contextMax, Date.now() - started);
      if (result.ok) {
        output.push(this.message(session._id, turn.id, result.text, now()));
      } else {
        stop = { type: "error", message: result.error };
      }
    } catch (err) {
      if (err instanceof Fenced) throw err;
      if (isAbort(err)) {
        if (lost.aborted) throw new Fenced();
        if (streamed) output.push(this.message(session._id, turn.id, streamed, now()));
      } else if (err instanceof ProviderUnavailable) {
        stop = { type: "error", message: err.message };
      } else {
        this.deps.logger.error("turn failed", { sessionId: session._id, turnId: turn.id, err });
        stop = { type: "error", message: "the turn failed unexpectedly" };
      }
    } finally {
      clearInterval(watcher);
    }
    usage ??= usageOf(modelName, { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 }, 0, Date.now() - started);
    await this.end(session, turn.id, output, stop, usage, fence);
  }

  private message(sessionId: string, turnId: string, text: string, at: string): Draft {
    return draft(sessionId, newId("evt"), { type: "agent.message", content: [{ type: "text", text }], delta: false }, { turnId, status: "complete", now: at });
  }

  private async consumeSteers(sessionId: string, ids: string[], fence: string): Promise<void> {
    for (;;) {
      const state = await this.deps.log.state(sessionId);
      const applied = await this.deps.log.apply(sessionId, planSteersConsumed(state, ids, new Date().toISOString()), state.v, fence);
      if (applied.ok) return;
      if (applied.reason !== "stale") throw new Fenced();
    }
  }

  /** Records usage, generates a title after the first turn, then appends the end of the turn. */
  async end(session: SessionDoc, turnId: string, output: Draft[], stop: StopReason, usage: Usage | undefined, fence: string): Promise<void> {
    const { log, sessions } = this.deps;
    if (usage) await sessions.addUsage(session._id, turnId, usage);
    const extra: Draft[] = [];
    if (session.title === null && stop.type === "end_turn") {
      const firstPrompt = (await log.history(session._id, 0, 50)).find((e: Envelope) => e.type === "user.message");
      const title = titleFrom(firstPrompt ? String((firstPrompt.payload.content as { text: string }[])[0]?.text ?? "") : "");
      if (await sessions.setGeneratedTitle(session._id, title)) {
        extra.push(draft(session._id, newId("evt"), { type: "session.title_updated", title }, { turnId, status: "complete", now: new Date().toISOString() }));
      }
    }
    for (;;) {
      const state = await log.state(session._id);
      if (state.turn?.id !== turnId) return;
      const plan = planTurnEnd(state, session._id, output, stop, usage, new Date().toISOString());
      plan.drafts.push(...extra);
      // The list projection first, with the version this append will produce: once a reader can see
      // the session idle, a list filtered by status agrees.
      await sessions.setStatus(session._id, "idle", state.v + 1);
      const applied = await log.apply(session._id, plan, state.v, fence);
      if (applied.ok) return;
      if (applied.reason !== "stale") throw new Fenced();
    }
  }
}
