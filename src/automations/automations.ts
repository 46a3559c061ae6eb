/**
 * Automation use cases: create, list, read, change (PATCH, pause, resume), delete, trigger, and the runs
 * and sessions an automation made. Every write puts the next run time in the due set before the record
 * (so a crash between the two wakes the record early, never loses it), and writes the record over the
 * revision it read (a concurrent change, or a scheduler settling an occurrence, makes it re-read).
 */
import type { automationCreateSchema } from "../../schemas/automation-create.js";
import type { automationPatchSchema } from "../../schemas/automation-patch.js";
import type { FromSchemas } from "../../schemas/index.js";
import type { Clock } from "../clock.js";
import { applyChange, nextFrom, type AutomationChange } from "./domain/automations.js";
import { canonicalTimezone, isCronText, parseSchedule, ScheduleError, type Schedule } from "./domain/schedule.js";
import { conflict, invalidState, notFound, validationError } from "../errors.js";
import { newId } from "../ids.js";
import type { AutomationQueue } from "./redis/automation-queue.js";
import type { AgentDoc, AgentStore, Page } from "../agents/store/agents.js";
import type { AutomationDoc, AutomationScope, AutomationSet, AutomationStore } from "./store/automations.js";
import type { AutomationRunStore, RunDoc } from "./store/automation-runs.js";
import type { AutomationOccurrences } from "./automation-occurrences.js";
import type { AutomationGate } from "./automation-runs.js";
import type { SessionService, SessionView } from "../sessions/sessions.js";
import { createKept, keptId, type Kept, type Once } from "../idempotency/index.js";

export type AutomationCreateBody = FromSchemas<typeof automationCreateSchema>;
export type AutomationPatchBody = FromSchemas<typeof automationPatchSchema>;

/** Automations one subject may have under one agent. */
export const MAX_AUTOMATIONS_PER_SUBJECT = 100;
/** Attempts of a change against concurrent writers of the same record before it gives up (409). */
const CHANGE_ATTEMPTS = 5;

export interface AutomationRef {
  agentId: string;
  subjectId: string;
  automationId: string;
}

/** A schedule's problem is the request's: 400 with the message that names it. */
function asInput<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ScheduleError) throw validationError(err.message);
    throw err;
  }
}

const readSchedule = (text: string, timezone: string | null, now: number): Schedule => asInput(() => parseSchedule(text, timezone, now));

export class AutomationService {
  constructor(
    private readonly store: AutomationStore,
    private readonly runStore: AutomationRunStore,
    private readonly queue: AutomationQueue,
    private readonly occurrences: AutomationOccurrences,
    private readonly agents: AgentStore,
    private readonly sessions: SessionService,
    private readonly clock: Clock,
    private readonly gate: AutomationGate,
  ) {}

  /** Each skill an automation names must be configured on the agent's latest version. */
  private async checkSkills(orgId: string, agentId: string, skills: string[], read?: AgentDoc): Promise<void> {
    if (skills.length === 0) return;
    const agent = read ?? (await this.agents.get(orgId, agentId));
    if (!agent) throw notFound("agent");
    const problems = skills.flatMap((name, i) =>
      agent.current.skills.some((s) => s.name === name) ? [] : [`skills[${i}]: must be a skill of the agent's latest version`],
    );
    if (problems.length > 0) throw validationError(problems);
  }

  /** Under an Idempotency-Key (`kept-creates.ts`), a retry finds the automation its first attempt made. */
  createKept(orgId: string, agentId: string, subjectId: string, body: AutomationCreateBody, once?: Once): Promise<Kept<AutomationDoc>> {
    return createKept(
      keptId("aut", once),
      (id) => this.store.get(orgId, agentId, subjectId, id),
      (id) => this.create(orgId, agentId, subjectId, body, id),
    );
  }

  async create(orgId: string, agentId: string, subjectId: string, body: AutomationCreateBody, id = newId("aut")): Promise<AutomationDoc> {
    const agent = await this.agents.get(orgId, agentId);
    if (!agent) throw notFound("agent");
    if (agent.status === "archived") throw invalidState("the agent is archived and accepts no new automations");
    const closed = agent.deploymentId ? await this.gate.refusal(agent.deploymentId) : null;
    if (closed) throw closed;
    const now = this.clock.now();
    const schedule = readSchedule(body.schedule, body.timezone ?? null, now);
    await this.checkSkills(orgId, agentId, body.skills ?? [], agent);
    if ((await this.store.countForSubject(orgId, agentId, subjectId, MAX_AUTOMATIONS_PER_SUBJECT)) >= MAX_AUTOMATIONS_PER_SUBJECT) {
      throw conflict(`the subject has ${MAX_AUTOMATIONS_PER_SUBJECT} automations under this agent, the most allowed; delete one first`);
    }
    const at = new Date(now);
    const doc: AutomationDoc = {
      _id: id,
      orgId,
      agentId,
      subjectId,
      name: body.name ?? null,
      prompt: body.prompt,
      skills: body.skills ?? [],
      schedule,
      repeat: body.repeat ?? null,
      enabled: body.enabled ?? true,
      paused: false,
      nextRunAt: null,
      completedOccurrences: 0,
      lastOccurrenceAt: null,
      runCount: 0,
      failedRunCount: 0,
      lastRun: null,
      revision: 0,
      ...(agent.deploymentId ? { deploymentId: agent.deploymentId } : {}),
      createdAt: at,
      updatedAt: at,
    };
    doc.nextRunAt = nextFrom(doc, now);
    if (doc.nextRunAt) await this.queue.schedule(doc._id, doc.nextRunAt.getTime());
    await this.store.insert(doc);
    return doc;
  }

  list(orgId: string, scope: AutomationScope, page: { limit: number; offset: number }): Promise<Page<AutomationDoc>> {
    return this.store.list(orgId, scope, page);
  }

  /**
   * The list a caller asks for by its agent's path. A deleted agent's automations stay listed under its
   * id; a path naming neither an agent of the organization nor any automation of it is not found (another
   * organization's agent included), never an empty list.
   */
  async listOfAgent(orgId: string, scope: AutomationScope, page: { limit: number; offset: number }): Promise<Page<AutomationDoc>> {
    const found = await this.store.list(orgId, scope, page);
    if (found.items.length === 0 && !(await this.agents.get(orgId, scope.agentId)) && !(await this.store.anyUnder(orgId, scope.agentId)))
      throw notFound("agent");
    return found;
  }

  async get(orgId: string, ref: AutomationRef): Promise<AutomationDoc> {
    const doc = await this.store.get(orgId, ref.agentId, ref.subjectId, ref.automationId);
    if (!doc) throw notFound("automation");
    return doc;
  }

  /** What a PATCH changes, read and checked against the automation as it is. */
  private async changeOf(orgId: string, a: AutomationDoc, body: AutomationPatchBody, now: number): Promise<{ set: AutomationSet; change: AutomationChange }> {
    const set: AutomationSet = {};
    const change: AutomationChange = {};
    if (body.name !== undefined) set.name = body.name;
    if (body.prompt !== undefined) set.prompt = body.prompt;
    if (body.skills !== undefined) {
      await this.checkSkills(orgId, a.agentId, body.skills);
      set.skills = body.skills;
    }
    if (body.repeat !== undefined) change.repeat = body.repeat;
    if (body.enabled !== undefined) change.enabled = body.enabled;
    if (body.schedule !== undefined) {
      // A zone given before stays with a new cron expression; another form is absolute, and has none.
      const kept = a.schedule.kind === "cron" && isCronText(body.schedule) ? a.schedule.timezone : null;
      change.schedule = readSchedule(body.schedule, body.timezone !== undefined ? body.timezone : kept, now);
    } else if (body.timezone !== undefined) {
      const zone = body.timezone;
      if (a.schedule.kind === "cron") change.schedule = readSchedule(a.schedule.expression, zone, now);
      else if (zone !== null && asInput(() => canonicalTimezone(zone)) !== "UTC") {
        throw validationError("timezone: applies to cron expressions only; this automation's schedule is absolute");
      }
    }
    return { set, change };
  }

  /** Applies a change computed from the record as read, retried over concurrent writers. */
  private async changeWith(
    orgId: string,
    ref: AutomationRef,
    compute: (a: AutomationDoc, now: number) => Promise<{ set: AutomationSet; change: AutomationChange }>,
  ): Promise<AutomationDoc> {
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
      const a = await this.get(orgId, ref);
      const now = this.clock.now();
      const { set, change } = await compute(a, now);
      const after = applyChange(a, change, now);
      const full: AutomationSet = { ...set, ...change, nextRunAt: after.nextRunAt };
      if (after.nextRunAt) await this.queue.schedule(a._id, after.nextRunAt.getTime());
      const written = await this.store.change(a._id, a.revision, full, new Date(now));
      if (written) return written;
    }
    throw conflict("the automation kept changing during this update; retry");
  }

  patch(orgId: string, ref: AutomationRef, body: AutomationPatchBody): Promise<AutomationDoc> {
    return this.changeWith(orgId, ref, (a, now) => this.changeOf(orgId, a, body, now));
  }

  /** Pause stops scheduled occurrences (history stays); resume schedules the next eligible one from now. Both idempotent. */
  setPaused(orgId: string, ref: AutomationRef, paused: boolean): Promise<AutomationDoc> {
    return this.changeWith(orgId, ref, async () => ({ set: {}, change: { paused } }));
  }

  /** Stops future runs; the sessions past runs created stay. A run already firing completes. */
  async delete(orgId: string, ref: AutomationRef): Promise<void> {
    const a = await this.get(orgId, ref);
    if (!(await this.store.delete(a._id))) throw notFound("automation");
    await this.queue.forget(a._id);
    await this.runStore.deleteFor(a._id);
  }

  /** Runs the automation now, leaving `nextRunAt` alone; a refused run is recorded, then answered with its refusal. */
  async trigger(orgId: string, ref: AutomationRef): Promise<RunDoc> {
    const { run, refusal } = await this.occurrences.trigger(await this.get(orgId, ref));
    if (refusal) throw refusal;
    return run;
  }

  async runs(orgId: string, ref: AutomationRef, page: { limit: number; offset: number }): Promise<Page<RunDoc>> {
    const a = await this.get(orgId, ref);
    return this.runStore.list(a._id, page);
  }

  /** The sessions the automation's runs created, newest first (one deleted since is left out of its page). */
  async sessionsOf(orgId: string, ref: AutomationRef, page: { limit: number; offset: number }): Promise<Page<SessionView>> {
    const a = await this.get(orgId, ref);
    const runs = await this.runStore.list(a._id, { ...page, withSession: true });
    return {
      items: await this.sessions.views(
        orgId,
        runs.items.map((r) => r.sessionId),
      ),
      hasMore: runs.hasMore,
    };
  }
}
