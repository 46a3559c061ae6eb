/**
 * The session actor: under the session's lock it drains the mailbox in order (the active turn, a
 * compaction asked for between turns, then queued prompts one turn each), and after releasing the lock looks once more, so a wake-up that
 * arrived meanwhile is never lost. A turn found already started was begun by a worker that died:
 * it is run again from the log, or ended with an error once it has failed to finish too often.
 */
import { stirred, waitsOnThreadsOnly, type RuntimeState } from "../sessions/domain/session-state.js";
import { parseState, type Snapshot } from "../sessions/redis/log-entries.js";
import type { Delegations } from "./delegations.js";
import { planNextQueued, planTurnAttempt } from "./domain/turn-plans.js";
import { isAppError, unavailable } from "../errors.js";
import type { Logger } from "../log.js";
import type { EventLog } from "../sessions/redis/event-log.js";
import type { Intents } from "../sessions/redis/intents.js";
import type { Locks } from "../redis/locks.js";
import { change, unchanged, type SessionTransitions, type Transition } from "../sessions/transitions.js";
import type { Compactor } from "./compactor.js";
import type { SessionFactsCache } from "../sessions/session-facts.js";
import type { TurnRunner } from "./turn.js";
import type { TurnEnding } from "./turn-end.js";
import { withSpan } from "../telemetry/tracing.js";

/** Workers that may start one turn before it is given up as failing. */
export const MAX_TURN_ATTEMPTS = 3;

export interface ActorDeps {
  log: EventLog;
  transitions: SessionTransitions;
  sessionFacts: SessionFactsCache;
  intents: Intents;
  locks: Locks;
  turns: TurnRunner;
  compactor: Compactor;
  ending: TurnEnding;
  delegations: Pick<Delegations, "look" | "stirParent">;
  logger: Logger;
  lockTtlMs: number;
  /** Aborts running turns at shutdown; they stay `running` and the next worker resumes them. */
  shutdown: AbortSignal;
}

/** A turn that waits only on its child threads has nothing to run until one of them stirs it, or it is interrupted. */
const waitsOnThreads = (state: RuntimeState) => state.turn !== null && state.interrupt !== state.turn.id && waitsOnThreadsOnly(state.turn);

/** A session without runtime state (deleted): nothing to run. */
const NO_STATE = parseState({});

export function hasWork(state: RuntimeState): boolean {
  if (state.status === "running" && state.turn !== null) return !waitsOnThreads(state);
  if (state.status === "waiting_on_human" && state.turn !== null) return state.interrupt === state.turn.id || state.turn.calls.some(stirred);
  return state.status === "idle" && (state.queue.length > 0 || state.compact === true);
}

export class SessionActor {
  constructor(private readonly deps: ActorDeps) {}

  /** Processes everything waiting for the session; returns when the mailbox is empty or another worker has it. */
  async process(sessionId: string): Promise<void> {
    const { log, intents, locks, shutdown } = this.deps;
    // What a pass decides from first: read beside taking the lock (both in one round trip), then the
    // read sent behind each release (in its round trip). Either may be older than the lock; every commit
    // planned from it checks what it read, and a refused one answers with the state as it is. Pending
    // marks are cleared up to when the pass's first read was sent, so none is cleared whose work the
    // pass could have missed.
    let seenAt = Date.now();
    let read = log.snapshot(sessionId);
    read.catch(() => undefined); // awaited by the drain; unread when the lock is busy
    while (!shutdown.aborted) {
      const first = read;
      const cleared = seenAt;
      const afterRelease = () => {
        seenAt = Date.now();
        return Promise.all([log.snapshot(sessionId), intents.clearPending(sessionId, cleared)]).then(([state]) => state);
      };
      const outcome = await locks.withSessionLock(
        sessionId,
        this.deps.lockTtlMs,
        shutdown,
        (fence, lost) => this.drain(sessionId, fence, lost, first),
        afterRelease,
      );
      if (!outcome.acquired || shutdown.aborted) return;
      // Another pass only when this one could act: a session without a record has nothing to run.
      if (!outcome.value || !hasWork(outcome.after?.state ?? NO_STATE)) return;
      read = Promise.resolve(outcome.after ?? null);
    }
  }

  /**
   * Runs what the mailbox holds; false when the session has no record (deleted), so nothing can run. A
   * session this worker already knows is not looked up again: deleting one also removes its runtime
   * state, which then holds nothing to run.
   */
  private async drain(sessionId: string, fence: string, lost: AbortSignal, first: Promise<Snapshot | null>): Promise<boolean> {
    const { log, sessionFacts, transitions, turns, ending, logger } = this.deps;
    const session = await sessionFacts.facts(sessionId);
    if (!session) {
      // A log with work but no record: a replica behind the write (a deleted session's log holds nothing to run).
      if (hasWork((await first)?.state ?? NO_STATE)) throw unavailable("the session's record is not readable yet");
      return false;
    }
    // The state the next decision starts from when it is known without a read: what the pass began
    // with, or what a turn's ending committed.
    let next: Promise<Snapshot | null> | Snapshot | undefined = first;
    try {
      for (;;) {
        if (lost.aborted) return true;
        // One read serves both the decision and the commit planned from it (its check catches a change between).
        const snapshot: Snapshot | null = next === undefined ? await log.snapshot(sessionId) : await next;
        next = undefined;
        const state = snapshot?.state ?? NO_STATE;
        if (state.status === "waiting_on_human" && state.turn && state.interrupt === state.turn.id) {
          // Interrupted while waiting for the human: the turn ends; its open questions stay unanswered.
          next = await ending.endEarly(session, state, { type: "end_turn" }, fence);
        } else if (state.status === "waiting_on_human" && state.turn?.calls.some(stirred)) {
          await this.deps.delegations.look(session, fence);
        } else if (state.status === "running" && state.turn && !waitsOnThreads(state)) {
          const taking: Transition<boolean> = await transitions.run(
            sessionId,
            (s) => {
              const attempt = s.status === "running" ? planTurnAttempt(s) : null;
              return attempt ? change(attempt, true) : unchanged(false);
            },
            { fence, from: snapshot },
          );
          if (!taking.value) continue;
          const known: Snapshot = taking.known;
          const taken: RuntimeState = known.state;
          if (taken.turn!.attempts > MAX_TURN_ATTEMPTS) {
            logger.warn("turn abandoned after repeated worker failures", { sessionId, turnId: taken.turn!.id });
            next = await ending.endEarly(
              session,
              taken,
              { type: "error", message: "the worker running this turn stopped before it finished; the turn was ended" },
              fence,
            );
            continue;
          }
          if (taken.turn!.attempts > 1) logger.info("resuming a turn a stopped worker began", { sessionId, turnId: taken.turn!.id });
          // A thread's turn runs: a parent waiting on its questions goes back to running.
          await this.deps.delegations.stirParent(session);
          const turn = {
            "session.id": sessionId,
            "gen_ai.conversation.id": sessionId,
            "gen_ai.agent.id": session.agentId,
            "agent_sessions.turn.id": taken.turn!.id,
          };
          const left: Snapshot | null = await withSpan("session.turn", turn, () => turns.run(session, known, fence, lost));
          next = left ?? undefined;
        } else if (state.status === "idle" && state.compact) {
          await this.deps.compactor.compactIdle(session, state, fence, lost);
        } else if (state.status === "idle" && state.queue.length > 0) {
          await transitions.run(
            sessionId,
            (s) => {
              const next = planNextQueued(s, sessionId, new Date().toISOString());
              return next ? change(next, null) : unchanged(null);
            },
            { fence },
          );
        } else {
          // At rest (idle, paused, or waiting on threads): a thread's parent looks at what it did.
          await this.deps.delegations.stirParent(session);
          return true;
        }
      }
    } catch (err) {
      if (isAppError(err, "lock_lost", "not_found")) {
        if (isAppError(err, "not_found")) sessionFacts.forget(sessionId);
        logger.warn("lost the session or its lock; another worker takes over", { sessionId });
        return true;
      }
      throw err;
    }
  }
}
