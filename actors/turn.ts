/**
 * One turn: rebuild the conversation from the log, call the model (streaming deltas to the live
 * stream, durable output to the log), decide each tool call it makes, run or deny what can be
 * settled at once, pause for the human when an approval, custom tool result or clarification is
 * needed, and call the model again until it answers without tools. Every write carries the lock's
 * fencing token, so a worker that lost its lock cannot append; every step is a compare-and-set, so
 * the API's concurrent appends (steers, interrupts, queued prompts) are never overwritten.
 */
import { join } from "node:path";
import type { Skill } from "../src/domain/agent-config.js";
import { conversation, DENIED_PREFIX, pendingSteers, titleFrom } from "../src/domain/conversation.js";
import { draft, type Draft, type Envelope, type StopReason, type Usage } from "../src/domain/events.js";
import {
  blockingEventIds,
  planPause,
  planStep,
  planSteersConsumed,
  planTurnEnd,
  type Plan,
  type RuntimeState,
  type Spent,
  type ToolCall,
} from "../src/domain/session-state.js";
import { decide, governingTools, parseMcpToolName, resolveTool, visibleBuiltinTools, visibleCustomTools } from "../src/domain/tool-permissions.js";
import { newId } from "../src/ids.js";
import type { Logger } from "../src/log.js";
import { isAbort, ProviderUnavailable, type TokenUsage, type ToolSpec } from "../src/models/provider.js";
import { parseModelName } from "../src/models/providers.js";
import { usageSnapshot } from "../src/models/usage.js";
import type { ProviderRegistry } from "../src/models/registry.js";
import type { EventLog } from "../src/redis/event-log.js";
import type { AgentStore, VersionDoc } from "../src/store/agents.js";
import type { SessionDoc, SessionStore } from "../src/store/sessions.js";
import type { ToolGrantStore } from "../src/store/tool-grants.js";
import { BUILTIN_SPECS, type BuiltinTools } from "../src/tools/builtin.js";
import { sandboxUser } from "../src/tools/sandbox.js";

export interface TurnDeps {
  log: EventLog;
  sessions: SessionStore;
  agents: AgentStore;
  providers: ProviderRegistry;
  tools: BuiltinTools;
  grants: ToolGrantStore;
  workspaceRoot: string;
  logger: Logger;
}

export class Fenced extends Error {
  constructor() {
    super("the turn lock was lost");
  }
}

const INTERRUPT_POLL_MS = 150;
/** Model calls one turn may make before it is ended as runaway. */
export const MAX_MODEL_CALLS = 25;
/** Skill contents put in the system prompt when the model cannot read them with skill_view. */
const INLINE_SKILLS_BUDGET = 50_000;

const zero = (): TokenUsage => ({ input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 });

/** A turn's usage from what it has spent; its latency is wall-clock since it started, waits included. */
function spentUsage(modelName: string, spent: Spent, startedAt: string): Usage {
  return usageSnapshot(modelName, spent.tokens, spent.calls, spent.contextMax, Date.now() - (Date.parse(startedAt) || Date.now()), {
    lastCall: spent.last,
    included: parseModelName(modelName).provider === "mock",
  });
}

/**
 * How skills reach the model: names in the system prompt, read in full with `skill_view` when the
 * skills toolset is visible; otherwise their contents inline, up to a budget.
 */
export function systemPrompt(version: VersionDoc, visible: string[]): string {
  if (version.skills.length === 0) return version.systemPrompt;
  const canView = visible.includes("skill_view");
  const lines = [version.systemPrompt, "", "## Skills"];
  if (canView) {
    lines.push("Read a skill's full instructions with the skill_view tool before relying on it.");
    for (const s of version.skills) lines.push(`- ${s.name}: ${firstLine(s)}`);
  } else {
    let budget = INLINE_SKILLS_BUDGET;
    for (const s of version.skills) {
      const body = s.content.length <= budget ? s.content : `${firstLine(s)} (truncated)`;
      budget -= body.length;
      lines.push(`### ${s.name}`, body);
    }
  }
  return lines.join("\n");
}

function firstLine(s: Skill): string {
  return s.content.split("\n").map((l) => l.replace(/^#+\s*/, "").trim()).find((l) => l) ?? s.name;
}

const UNSETTLED = new Set(["approved", "denied", "executing"]);
const WAITING = new Set(["ask", "custom", "clarify"]);

export class TurnRunner {
  constructor(private readonly deps: TurnDeps) {}

  /** Runs the active turn until it ends or pauses. Throws `Fenced` when the lock is lost. */
  async run(session: SessionDoc, initial: RuntimeState, fence: string, lost: AbortSignal): Promise<void> {
    const { log } = this.deps;
    const turnId = initial.turn!.id;
    const abort = new AbortController();
    lost.addEventListener("abort", () => abort.abort(), { once: true });
    const watcher = setInterval(() => {
      log.state(session._id).then(
        (s) => s.interrupt === turnId && abort.abort(),
        () => undefined,
      );
    }, INTERRUPT_POLL_MS);

    const spent: Spent = initial.turn!.spent ?? { tokens: zero(), calls: 0, last: zero(), contextMax: 0 };
    const tokens = { ...spent.tokens };
    let calls = spent.calls;
    let lastCall = spent.last;
    let contextMax = spent.contextMax;
    let modelName = "unknown";
    const usage = () => spentUsage(modelName, { tokens, calls, last: lastCall, contextMax }, initial.turn!.startedAt);
    let streamed = "";
    try {
      const version = await this.deps.agents.getVersionById(session.agentId, session.agentVersion);
      if (!version) throw new ProviderUnavailable("the agent version this session records no longer exists");
      modelName = version.modelName;
      const governing = governingTools(version, session.role);
      const visible = visibleBuiltinTools(governing);
      const specs: ToolSpec[] = [
        ...visible.map((name) => ({ name, ...BUILTIN_SPECS[name]! })),
        ...visibleCustomTools(governing).map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema })),
      ];
      const system = systemPrompt(version, visible);

      for (;;) {
        const state = await log.state(session._id);
        if (state.turn?.id !== turnId) return;
        if (state.interrupt === turnId) return await this.end(session, turnId, [], { type: "end_turn" }, usage(), fence);
        if (state.turn.calls.some((c) => UNSETTLED.has(c.state))) {
          await this.settle(session, version, state, fence, abort.signal, lost);
          continue;
        }
        if (state.turn.calls.some((c) => WAITING.has(c.state))) {
          if (await this.pause(session, fence)) return;
          continue; // answered in the meantime
        }
        if (calls >= MAX_MODEL_CALLS) {
          return await this.end(session, turnId, [], { type: "error", message: `the turn made ${MAX_MODEL_CALLS} model calls without finishing` }, usage(), fence);
        }

        const { provider, model } = this.deps.providers.resolve(version.modelName);
        const history = await log.all(session._id);
        const steers = pendingSteers(history);
        streamed = "";
        const now = () => new Date().toISOString();
        // Steers count as delivered once a model call that carried them has answered; an aborted call
        // leaves them for the next one.
        const result = await provider.call(
          { model, system, messages: conversation(history), tools: specs, steers: steers.map((s) => s.text), signal: abort.signal },
          {
            onTextDelta: async (text) => {
              streamed += text;
              const delta = draft(session._id, newId("evt"), { type: "agent.message", content: [{ type: "text", text }], delta: true }, { turnId, now: now() });
              if (!(await log.appendLive(session._id, fence, delta))) throw new Fenced();
            },
            onThinking: async (text) => {
              const thinking = draft(session._id, newId("evt"), { type: "agent.thinking", content: [{ type: "text", text }], delta: false }, { turnId, status: "complete", now: now() });
              await this.apply(session._id, () => ({ drafts: [thinking], state: {}, statuses: [], wake: false }), fence);
            },
          },
        );
        if (steers.length > 0) {
          const ids = steers.map((s) => s.id);
          await this.apply(session._id, () => planSteersConsumed(ids, now()), fence);
        }
        calls++;
        for (const k of Object.keys(tokens) as (keyof TokenUsage)[]) tokens[k] += result.usage[k];
        lastCall = result.usage;
        contextMax = result.contextMax;
        if (!result.ok) return await this.end(session, turnId, [], { type: "error", message: result.error }, usage(), fence);

        const output: Draft[] = result.text ? [this.message(session._id, turnId, result.text, now())] : [];
        if (result.toolUses.length === 0) return await this.end(session, turnId, output, { type: "end_turn" }, usage(), fence);
        await this.step(session, governing, turnId, output, result.toolUses, { tokens: { ...tokens }, calls, last: lastCall, contextMax }, fence);
      }
    } catch (err) {
      if (err instanceof Fenced) throw err;
      if (isAbort(err)) {
        if (lost.aborted) throw new Fenced();
        // Interrupted: what was streamed so far stays as the turn's message.
        const output = streamed ? [this.message(session._id, turnId, streamed, new Date().toISOString())] : [];
        await this.end(session, turnId, output, { type: "end_turn" }, usage(), fence);
      } else if (err instanceof ProviderUnavailable) {
        await this.end(session, turnId, [], { type: "error", message: err.message }, usage(), fence);
      } else {
        this.deps.logger.error("turn failed", { sessionId: session._id, turnId, err });
        await this.end(session, turnId, [], { type: "error", message: "the turn failed unexpectedly" }, usage(), fence);
      }
    } finally {
      clearInterval(watcher);
    }
  }

  /** Decides each tool call of a model answer and appends the answer with the events the decisions need. */
  private async step(
    session: SessionDoc,
    governing: VersionDoc["tools"],
    turnId: string,
    output: Draft[],
    uses: { name: string; input: unknown }[],
    spent: Spent,
    fence: string,
  ): Promise<void> {
    const fresh = await this.deps.sessions.byId(session._id);
    const yolo = fresh?.yoloMode ?? session.yoloMode; // read at each decision
    const always = await this.deps.grants.always({ orgId: session.orgId, agentId: session.agentId, subjectId: session.subjectId });
    const state = await this.deps.log.state(session._id);
    const grants = { session: new Set(state.grants), always };
    const now = new Date().toISOString();
    // Order within the model call's append: its text, then requests and tool-use events, then policy
    // denials; a tool-use event after results therefore always means a new model call.
    const drafts = [...output];
    const denials: Draft[] = [];
    const modelCall = newId("call");
    const calls: ToolCall[] = uses.map((use) => {
      const resolved = resolveTool(governing, use.name);
      const decision = decide(resolved, use.name, yolo, grants);
      const kind = use.name === "clarify" && resolved ? "clarify" : (resolved?.kind ?? (parseMcpToolName(use.name) ? "mcp" : "builtin"));
      const call: ToolCall = { id: newId("evt"), name: use.name, input: use.input ?? {}, kind, state: "done" };
      if (decision.action === "deny") {
        // Written with the model call's other events, so the rebuilt transcript keeps calls apart.
        denials.push(this.result(session._id, turnId, call, false, `${DENIED_PREFIX}${decision.reason}`, now, modelCall));
      } else if (decision.action === "ask") {
        call.state = "ask";
        call.approvalId = newId("evt");
        drafts.push(draft(session._id, call.approvalId, { type: "agent.approval_request", tool_use_id: call.id, tool: call.name, tool_type: kind, input: call.input }, { turnId, status: "complete", now }));
      } else {
        drafts.push(...this.useEvents(session._id, turnId, call, now));
      }
      return call;
    });
    drafts.push(...denials);
    await this.apply(session._id, (s) => planStep(s, drafts, calls, spent), fence);
  }

  /** The events that put an allowed call in motion, and its state after them. */
  private useEvents(sessionId: string, turnId: string, call: ToolCall, now: string): Draft[] {
    const input = call.input;
    if (call.kind === "clarify") {
      call.state = "clarify";
      const { question, choices } = (input ?? {}) as { question?: unknown; choices?: unknown };
      const list = Array.isArray(choices) ? choices.map(String) : null;
      return [draft(sessionId, call.id, { type: "agent.clarify_request", request_id: call.id, question: String(question ?? ""), choices: list }, { turnId, status: "complete", now })];
    }
    if (call.kind === "custom") {
      call.state = "custom";
      return [draft(sessionId, call.id, { type: "agent.custom_tool_use", id: call.id, tool: call.name, input }, { turnId, status: "complete", now })];
    }
    call.state = "executing";
    const type = call.kind === "mcp" ? "agent.mcp_tool_use" : "agent.tool_use";
    return [draft(sessionId, call.id, { type, id: call.id, tool: call.name, input, status: "running" }, { turnId, status: "running", now })];
  }

  /**
   * Runs or denies, in the order the model asked, what the human has answered and what needs no
   * answer. Each transition is its own append, so a worker that dies mid-way resumes at the right step
   * (a tool that was running is run again: execution is at least once).
   */
  private async settle(session: SessionDoc, version: VersionDoc, state: RuntimeState, fence: string, signal: AbortSignal, lost: AbortSignal): Promise<void> {
    const turnId = state.turn!.id;
    const save = (call: ToolCall, drafts: Draft[]) =>
      this.apply(session._id, (s) => planStep(s, drafts, s.turn!.calls.map((c) => (c.id === call.id ? call : c))), fence);
    for (const original of state.turn!.calls.filter((c) => UNSETTLED.has(c.state))) {
      const call: ToolCall = { ...original };
      if (call.state === "denied") {
        call.state = "done";
        await save(call, [this.result(session._id, turnId, call, false, `${DENIED_PREFIX}${call.reason ?? "denied"}`, new Date().toISOString())]);
        continue;
      }
      if (call.state === "approved") {
        if (call.scope === "always") await this.deps.grants.grant({ orgId: session.orgId, agentId: session.agentId, subjectId: session.subjectId }, call.name);
        await save(call, this.useEvents(session._id, turnId, call, new Date().toISOString()));
      }
      if (call.state === "executing") {
        const outcome = await this.execute(session, version, call, signal);
        // Stopped because the worker is shutting down or lost its lock, not because the tool ended: the
        // call stays `executing`, and the worker that takes the turn over runs it again.
        if (lost.aborted) throw new Fenced();
        call.state = "done";
        await save(call, [this.result(session._id, turnId, call, outcome.ok, outcome.text, new Date().toISOString())]);
      }
    }
  }

  private async execute(session: SessionDoc, version: VersionDoc, call: ToolCall, signal: AbortSignal): Promise<{ ok: boolean; text: string }> {
    if (call.kind === "mcp") return { ok: false, text: "MCP tool execution is not available yet in this deployment" };
    try {
      return await this.deps.tools.run(call.name, call.input, {
        orgId: session.orgId,
        agentId: session.agentId,
        subjectId: session.subjectId,
        sessionId: session._id,
        skills: version.skills,
        workspace: join(this.deps.workspaceRoot, session._id),
        user: sandboxUser(session._id),
        signal,
        otherConversations: () => this.otherConversations(session),
      });
    } catch (err) {
      if (isAbort(err)) throw err;
      this.deps.logger.warn("tool failed", { sessionId: session._id, tool: call.name, err });
      return { ok: false, text: `the tool ${call.name} failed unexpectedly` };
    }
  }

  private async otherConversations(session: SessionDoc) {
    const page = await this.deps.sessions.list(session.orgId, { agentId: session.agentId, subjectId: session.subjectId }, { limit: 20, offset: 0 });
    const out = [];
    for (const other of page.items.filter((s) => s._id !== session._id)) {
      const events = await this.deps.log.history(other._id, 0, 500);
      const texts = events
        .filter((e) => (e.type === "user.message" || (e.type === "agent.message" && e.payload.delta === false)))
        .map((e) => (e.payload.content as { text: string }[]).map((b) => b.text).join("\n"));
      out.push({ sessionId: other._id, title: other.title, texts });
    }
    return out;
  }

  /**
   * A tool result event. A call denied by policy had no tool-use event, so its result also carries the
   * call's `input` and the `model_call_id` of the model answer it belongs to: the transcript rebuilt
   * from the log needs both.
   */
  private result(sessionId: string, turnId: string, call: ToolCall, ok: boolean, text: string, now: string, deniedInCall?: string): Draft {
    const type = call.kind === "mcp" ? "agent.mcp_tool_result" : "agent.tool_result";
    const unannounced = deniedInCall ? { input: call.input, model_call_id: deniedInCall } : {};
    const payload = { type, tool_use_id: call.id, tool: call.name, status: ok ? "completed" : "failed", content: [{ type: "text", text: text || "(no output)" }], is_error: !ok, ...unannounced };
    return draft(sessionId, newId("evt"), payload, { turnId, status: "complete", now });
  }

  private message(sessionId: string, turnId: string, text: string, at: string): Draft {
    return draft(sessionId, newId("evt"), { type: "agent.message", content: [{ type: "text", text }], delta: false }, { turnId, status: "complete", now: at });
  }

  /** Applies a plan made from fresh state, retrying when the API changed the state in between. */
  private async apply(sessionId: string, make: (state: RuntimeState) => Plan, fence: string): Promise<void> {
    for (;;) {
      const state = await this.deps.log.state(sessionId);
      const applied = await this.deps.log.apply(sessionId, make(state), state.v, fence);
      if (applied.ok) return;
      if (applied.reason !== "stale") throw new Fenced();
    }
  }

  /**
   * `session.status_idle` with requires_action; the list projection first, as at a turn end. False when
   * everything was answered before the pause could be written (the turn goes on instead).
   */
  private async pause(session: SessionDoc, fence: string): Promise<boolean> {
    for (;;) {
      const state = await this.deps.log.state(session._id);
      if (!state.turn || blockingEventIds(state.turn).length === 0) return false;
      await this.deps.sessions.setStatus(session._id, "waiting_on_human", state.v + 1);
      const applied = await this.deps.log.apply(session._id, planPause(state, session._id, new Date().toISOString()), state.v, fence);
      if (applied.ok) return true;
      if (applied.reason !== "stale") throw new Fenced();
    }
  }

  /**
   * Ends a turn without running it further (interrupted while it waited for the human, or abandoned
   * after repeated worker failures). The model calls it made were spent and are reported, on the
   * terminal event and in the session's aggregate.
   */
  async endEarly(session: SessionDoc, state: RuntimeState, stop: StopReason, fence: string): Promise<void> {
    const turn = state.turn!;
    let usage: Usage | undefined;
    if (turn.spent && turn.spent.calls > 0) {
      const version = await this.deps.agents.getVersionById(session.agentId, session.agentVersion);
      usage = spentUsage(version?.modelName ?? "unknown", turn.spent, turn.startedAt);
    }
    await this.end(session, turn.id, [], stop, usage, fence);
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
