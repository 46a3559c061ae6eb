/**
 * Dreaming (`features.dreaming`): when a deployment has been idle for a while after some activity, it
 * runs once in a fresh thread of its own, prompted to go over its recent conversations and keep what
 * lasts: facts in memory, methods as skills. Nobody is there to approve a tool, so the dream thread
 * runs without asking (yoloMode); it is an ordinary thread otherwise (history, usage, credits).
 * Best effort: a dream whose process dies before its prompt is sent is not retried; the next
 * activity earns another.
 */
import type { Logger } from "../log.js";
import { newId } from "../ids.js";
import type { DeploymentDoc, DeploymentStore } from "./store/deployments.js";
import type { SessionStore } from "../sessions/store/sessions.js";
import type { EventService } from "../sessions/events.js";
import type { SessionService } from "../sessions/sessions.js";

export const DREAM_TITLE = "Dreaming";

export const DREAM_PROMPT = [
  "You are dreaming: nobody is talking to you now, and nobody will answer questions.",
  "Go over your recent conversations with this customer (search your past conversations).",
  "Keep what will matter next time: durable facts and preferences with the memory tool,",
  "and, for anything you had to work out step by step, a skill with skill_manage (or a better version of one you have).",
  "Keep it short; do not repeat what you already remember.",
].join(" ");

/** Sessions looked at to find the latest activity that is not a dream's own. */
const RECENT = 25;

export interface DreamDeps {
  store: DeploymentStore;
  sessionStore: SessionStore;
  sessions: SessionService;
  events: EventService;
  logger: Logger;
  /** How long a deployment must be idle after activity before it dreams. */
  idleMs: number;
}

export class DeploymentDreams {
  constructor(private readonly deps: DreamDeps) {}

  /** Starts a dream for each idle deployment that has had activity since its last one (every one, read `pageSize` at a time); answers how many. */
  async sweep(now: Date, pageSize = 100): Promise<number> {
    let started = 0;
    for await (const d of this.deps.store.withFeature("dreaming", pageSize)) {
      try {
        if (await this.dueAt(d, now)) started += (await this.dream(d, now)) ? 1 : 0;
      } catch (err) {
        this.deps.logger.warn("a deployment's dream could not start", { deploymentId: d._id, err });
      }
    }
    return started;
  }

  /** Idle long enough, with activity (not a dream's) since the last dream began. */
  private async dueAt(d: DeploymentDoc, now: Date): Promise<boolean> {
    const dreams = new Set(d.dreams?.threadIds ?? []);
    const latest = (await this.deps.sessionStore.recentlyActive(d.orgId, d.agentId, RECENT)).find((s) => !dreams.has(s._id));
    if (!latest || latest.status === "running") return false;
    const since = d.dreams?.lastAt.getTime() ?? 0;
    const at = latest.updatedAt.getTime();
    return at > since && now.getTime() - at >= this.deps.idleMs;
  }

  private async dream(d: DeploymentDoc, now: Date): Promise<boolean> {
    const threadId = newId("ses");
    if (!(await this.deps.store.beginDream(d, threadId, now))) return false;
    await this.deps.sessions.createOnce(
      d.orgId,
      { agentId: d.agentId, subjectId: d.customerId, title: DREAM_TITLE, yoloMode: true, metadata: { dreaming: true } },
      threadId,
      false,
    );
    await this.deps.events.post(d.orgId, threadId, { events: [{ type: "user.message", content: [{ type: "text", text: DREAM_PROMPT }] }] }, Promise.resolve());
    this.deps.logger.info("deployment dreaming", { deploymentId: d._id, threadId });
    return true;
  }
}
