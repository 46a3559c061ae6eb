/**
 * Occurrences of automations: a scheduled one fired by a scheduler that claimed the automation, and a
 * manual one (trigger). A scheduled occurrence is settled in steps that are each done once, so a
 * scheduler that dies at any point leaves work the next claimer completes, never repeats: the run opens
 * under the occurrence's id (with its session id), runs (session and prompt, each once), finishes once,
 * is counted once per scheduled time, and the next run time moves on only from that time.
 */
import type { Clock } from "../clock.js";
import { countsOf, nextAfterOccurrence, stateOf, type OccurrenceOutcome, type RunSummary } from "./domain/automations.js";
import { newId } from "../ids.js";
import type { AutomationDoc, AutomationStore } from "./store/automations.js";
import { occurrenceRunId, type AutomationRunStore, type RunDoc } from "./store/automation-runs.js";
import type { AutomationRunner } from "./automation-runs.js";

function outcomeOf(run: RunDoc): OccurrenceOutcome {
  if (run.status === "succeeded") return { status: "succeeded", sessionId: run.sessionId };
  return { status: "failed", sessionId: run.sessionCreated ? run.sessionId : null, error: run.error ?? "failed" };
}

export function summaryOf(run: RunDoc): RunSummary {
  return { id: run._id, at: run.finishedAt ?? run.createdAt, status: run.status, sessionId: run.sessionCreated ? run.sessionId : null, error: run.error };
}

export class AutomationOccurrences {
  constructor(
    private readonly store: AutomationStore,
    private readonly runs: AutomationRunStore,
    private readonly runner: AutomationRunner,
    private readonly clock: Clock,
  ) {}

  /** Finishes the run as of now (its session and prompt took their time since it opened). */
  private finish(run: RunDoc, outcome: OccurrenceOutcome): Promise<RunDoc | null> {
    return this.runs.finish(run, outcome, new Date(this.clock.now()));
  }

  private newRun(a: AutomationDoc, id: string, scheduledFor: Date | null, now: number): RunDoc {
    const trigger = scheduledFor ? "schedule" : "manual";
    return {
      _id: id,
      orgId: a.orgId,
      automationId: a._id,
      trigger,
      scheduledFor,
      status: "pending",
      sessionId: newId("ses"),
      sessionCreated: false,
      error: null,
      createdAt: new Date(now),
      finishedAt: null,
    };
  }

  /**
   * Fires the automation's occurrence if one is due (its record says what is, whatever woke it), and
   * answers when it runs next (ms; null: not scheduled). Throws when a store fails: the claim then lapses
   * and another attempt carries on from the last step done.
   */
  async fire(id: string): Promise<number | null> {
    const now = this.clock.now();
    const a = await this.store.byId(id);
    if (!a || a.nextRunAt === null || stateOf(a) !== "active") return null;
    if (a.nextRunAt.getTime() > now) return a.nextRunAt.getTime();
    const scheduled = a.nextRunAt;
    const { run, fresh } = await this.runs.open(this.newRun(a, occurrenceRunId(a._id, scheduled), scheduled, now));
    const finished = run.status === "pending" ? await this.finish(run, (await this.runner.execute(a, run, fresh)).outcome) : run;
    if (!finished) return null;
    const counts = countsOf(outcomeOf(finished), true);
    const summary = summaryOf(finished);
    // Nothing wrote the record since it was read: count and move on in one write, from what was read.
    const counted = { ...a, completedOccurrences: a.completedOccurrences + counts.completedOccurrences, lastOccurrenceAt: scheduled };
    const settled = await this.store.settleOccurrence(a._id, a.revision, scheduled, summary, counts, nextAfterOccurrence(counted, scheduled, now));
    const after = settled ?? (await this.countThenAdvance(a._id, scheduled, summary, counts, now));
    return after?.nextRunAt && stateOf(after) === "active" ? after.nextRunAt.getTime() : null;
  }

  /** The path of a record written since it was read (a change, or an earlier attempt at this occurrence): each step once. */
  private async countThenAdvance(id: string, scheduled: Date, summary: RunSummary, counts: Record<string, number>, now: number) {
    const counted = await this.store.countOccurrence(id, scheduled, summary, counts);
    if (!counted || counted.nextRunAt?.getTime() !== scheduled.getTime()) return counted;
    return this.store.advance(id, scheduled, nextAfterOccurrence(counted, scheduled, now), new Date(now));
  }

  /**
   * Runs the automation now, whatever its state, leaving its schedule alone; answers the finished run
   * and, when it failed on a refusal, that refusal (for the caller to answer with).
   */
  async trigger(a: AutomationDoc) {
    const now = this.clock.now();
    const { run } = await this.runs.open(this.newRun(a, newId("run"), null, now));
    let result: Awaited<ReturnType<AutomationRunner["execute"]>>;
    try {
      result = await this.runner.execute(a, run, true);
    } catch (err) {
      // The caller sees the error; the run says it did not happen (best effort: a store may be down).
      await this.finish(run, { status: "failed", sessionId: null, error: "interrupted by an internal error" }).catch(() => undefined);
      throw err;
    }
    const finished = (await this.finish(run, result.outcome)) ?? run;
    await this.store.countManual(a._id, summaryOf(finished), countsOf(result.outcome, false));
    return { run: finished, refusal: result.refusal };
  }
}
