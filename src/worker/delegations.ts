/**
 * Delegation: a call of a callable agent's tool opens a child thread (a session of its own, linked to
 * its parent) and sends it the task; the parent's turn waits on it without holding a lock. Each side
 * only ever changes itself through the transitions, and tells the other: a child that changes stirs its
 * parent, whose worker reads the child's runtime state and log (the truth of what it did) and records
 * what it saw. Every step is idempotent and every notice is backed by the log, so a worker killed at any
 * point, parent or child, is resumed from what the logs say.
 */
import { textBlocks, textOf, type Envelope, type StopReason, type TextBlock, type Usage } from "../sessions/domain/events.js";
import { blockingEventIds, stirred, type RuntimeState, type ToolCall } from "../sessions/domain/session-state.js";
import { planInbound } from "../sessions/domain/inbound-plan.js";
import { payloadOf } from "./domain/conversation.js";
import { calleeOf } from "../agent-tools/domain/toolsets.js";
import { inputProblem } from "../agent-tools/tool-input.js";
import { callableAgentsOf } from "../agents/domain/agent-config.js";
import type { VersionDoc } from "../agents/store/agents.js";
import { isAppError } from "../errors.js";
import type { Logger } from "../log.js";
import type { EventLog } from "../sessions/redis/event-log.js";
import type { SessionFacts } from "../sessions/session-facts.js";
import type { SessionService } from "../sessions/sessions.js";
import { change, decided, unchanged, type SessionTransitions } from "../sessions/transitions.js";
import { delegationRefusal, planThreadOpened, planThreadSeen, planThreadStirred, threadIdOf, type ThreadView } from "./domain/threads.js";
import { planStep } from "./domain/turn-plans.js";
import { resultDraft, type TurnContext } from "./domain/tool-calls.js";

export interface DelegationDeps {
  log: EventLog;
  transitions: SessionTransitions;
  sessions: Pick<SessionService, "openThread">;
  logger: Logger;
}

const now = () => new Date().toISOString();

/** The child's answer: the messages of its first finished turn (the one the delegation's message started). */
function answerOf(messages: TextBlock[][], stop: StopReason, usage: Usage | null): ThreadView {
  const text = messages.map(textOf).join("\n\n");
  const failed = stop.type === "error" ? `an error: ${stop.message}` : stop.type === "budget_exceeded" ? `its ${stop.scope} budget reached` : null;
  if (failed) return { kind: "answered", ok: false, text: `the thread ended with ${failed}${text ? `\n\n${text}` : ""}`, usage };
  return { kind: "answered", ok: true, text: text || "(the thread ended without an answer)", usage };
}

export class Delegations {
  constructor(private readonly deps: DelegationDeps) {}

  /**
   * Opens the call's child thread, once, and sends it the task; the call then waits on it. A call that
   * may not delegate (no such callable agent, bad input, too deep, too many open, a callee that takes no
   * work) gets a tool error, and the turn goes on.
   */
  async open(session: SessionFacts, version: VersionDoc, state: RuntimeState, call: ToolCall, ctx: TurnContext, fence: string): Promise<void> {
    const callee = calleeOf(call.name);
    const depth = session.thread?.depth ?? 0;
    const refusal = !callableAgentsOf(version).some((c) => c.agentId === callee)
      ? `no callable agent ${callee} is configured on this agent`
      : (inputProblem(call.name, call.input) ?? delegationRefusal(depth, state.turn!));
    if (refusal) return this.fail(session, call, ctx, refusal, fence);
    const message = (call.input as { message: string }).message;
    const threadId = threadIdOf(call.id);
    try {
      await this.deps.sessions.openThread(session.orgId, callee, session.subjectId, threadId, {
        parentSessionId: session._id,
        toolUseId: call.id,
        depth: depth + 1,
      });
      await this.sendOnce(threadId, message);
    } catch (err) {
      if (!isAppError(err, "not_found", "invalid_state")) throw err;
      return this.fail(session, call, ctx, `the agent ${callee} cannot take the task: ${err.message}`, fence);
    }
    await this.deps.transitions.run(session._id, (s) => change(planThreadOpened(s, ctx, call, threadId, message), null), { fence });
  }

  private async fail(session: SessionFacts, call: ToolCall, ctx: TurnContext, reason: string, fence: string): Promise<void> {
    const done: ToolCall = { ...call, state: "done" };
    await this.deps.transitions.run(
      session._id,
      (s) =>
        change(
          planStep(
            s,
            [resultDraft(ctx, call, false, reason)],
            s.turn!.calls.map((c) => (c.id === call.id ? done : c)),
          ),
          null,
        ),
      { fence },
    );
  }

  /** The task, as the thread's first message: sent once (a retried call finds it there). */
  private async sendOnce(threadId: string, text: string): Promise<void> {
    const sent = () => this.deps.log.first(threadId, 5, (e) => e.type === "user.message");
    if (await sent()) return;
    const message = { type: "user.message" as const, content: textBlocks(text) };
    try {
      await this.deps.transitions.run(threadId, (s) => decided(planInbound(s, threadId, [message], "immediate", now())));
    } catch (err) {
      // A concurrent attempt's message started the thread's turn first.
      if (!(isAppError(err, "invalid_state") && (await sent()))) throw err;
    }
  }

  /** Reads each child thread that stirred since the session's turn last looked, and records what it shows. */
  async look(session: SessionFacts, fence: string): Promise<void> {
    const state = await this.deps.log.state(session._id);
    for (const call of state.turn?.calls.filter(stirred) ?? []) {
      const seen = call.thread!.stirs;
      const view = await this.view(call.thread!.id);
      const ctx = { sessionId: session._id, turnId: state.turn!.id, now: now() };
      await this.deps.transitions.run(
        session._id,
        (s) => {
          const plan = planThreadSeen(s, ctx, call.id, seen, view);
          return plan ? change(plan, null) : unchanged(null);
        },
        { fence },
      );
    }
  }

  /** What a child thread shows: still working, waiting for the human, or its answer (from its log). */
  private async view(threadId: string): Promise<ThreadView> {
    const child = await this.deps.log.existingState(threadId);
    if (!child || child.status === "deleted") return { kind: "answered", ok: false, text: "the thread was deleted before it answered", usage: null };
    if (child.status === "running") return { kind: "working" };
    if (child.status === "waiting_on_human" && child.turn) return { kind: "asks", ids: blockingEventIds(child.turn) };
    const messages = new Map<string | null, TextBlock[][]>();
    for await (const { envelope } of this.deps.log.events(threadId, 0)) {
      const ended = this.ending(envelope);
      if (ended) return answerOf(messages.get(envelope.turnId) ?? [], ended, envelope.usage ?? null);
      if (envelope.type === "agent.message") {
        const { content, delta } = payloadOf<{ content: TextBlock[]; delta: boolean }>(envelope);
        if (!delta) messages.set(envelope.turnId, [...(messages.get(envelope.turnId) ?? []), content]);
      }
    }
    return { kind: "working" };
  }

  private ending(envelope: Envelope): StopReason | null {
    if (envelope.type !== "session.status_idle") return null;
    const stop = payloadOf<{ stop_reason: StopReason }>(envelope).stop_reason;
    return stop.type === "requires_action" ? null : stop;
  }

  /** A thread changed (its turn began, paused or ended): its parent, if it still waits on it, is stirred. */
  async stirParent(child: SessionFacts): Promise<void> {
    if (!child.thread) return;
    try {
      await this.deps.transitions.run(child.thread.parentSessionId, (s) => {
        const plan = planThreadStirred(s, child._id);
        return plan ? change(plan, null) : unchanged(null);
      });
    } catch (err) {
      // A parent deleted since waits on nothing.
      if (!isAppError(err, "not_found")) throw err;
    }
  }

  /** A turn that ends with threads still open interrupts them: their work is no longer wanted. */
  async interruptOpen(state: RuntimeState): Promise<void> {
    const open = state.turn?.calls.filter((c) => c.state === "thread" && c.thread) ?? [];
    await Promise.all(
      open.map(async (c) => {
        const threadId = c.thread!.id;
        try {
          await this.deps.transitions.run(threadId, (s) => decided(planInbound(s, threadId, [{ type: "user.interrupt" }], "immediate", now())));
        } catch (err) {
          if (!isAppError(err, "not_found", "invalid_state")) throw err;
          this.deps.logger.debug("an open thread could not be interrupted", { threadId, err });
        }
      }),
    );
  }
}
