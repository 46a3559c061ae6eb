/**
 * Session notices for webhooks, queued where a session's record follows its log: the status projection.
 * A commit that changes a session's status marks its `projections` member atomically with the change;
 * the mark is cleared only after the record is written and these notices are queued, and a writer that
 * dies first leaves the mark to the recovery sweep, which writes (and notifies) again. So every status a
 * session settles in is notified at least once, from the same outbox that keeps its record right.
 * Statuses passed through faster than the record is written are coalesced, as on the record.
 */
import { blockingEventIds } from "../sessions/domain/session-state.js";
import type { EventLog } from "../sessions/redis/event-log.js";
import type { SessionStore, StateProjection } from "../sessions/store/sessions.js";
import type { ProjectionWrite, StatusProjection } from "../sessions/status-projector.js";
import type { WebhookNotices } from "./webhook-notices.js";

export class NotifyingProjection implements StatusProjection {
  constructor(
    private readonly records: SessionStore,
    private readonly log: EventLog,
    private readonly notices: WebhookNotices,
  ) {}

  async projectState(sessionId: string, projection: StateProjection): Promise<void> {
    await this.records.projectState(sessionId, projection);
    if (projection.status) await this.notify(sessionId, projection.status.status, projection.status.version);
  }

  /** One write of every record; then each session's notices, a session whose notices failed left to the sweep. */
  async projectStates(batch: readonly ProjectionWrite[]): Promise<ReadonlySet<string>> {
    await this.records.projectStates(batch);
    const notified = await Promise.allSettled(
      batch.map(async ({ sessionId, projection }) => {
        if (projection.status) await this.notify(sessionId, projection.status.status, projection.status.version);
        return sessionId;
      }),
    );
    return new Set(notified.flatMap((r) => (r.status === "fulfilled" ? [r.value] : [])));
  }

  private async notify(sessionId: string, status: string, version: number): Promise<void> {
    const kept = await this.log.identity(sessionId);
    const identity = kept?.identity ?? (await this.records.byId(sessionId));
    if (!identity) return;
    const now = new Date();
    const base = { session_id: sessionId, agent_id: identity.agentId, subject_id: identity.subjectId };
    await this.notices.notify(identity.orgId, "session.status_changed", `${sessionId}:${version}`, { ...base, status, version }, now);
    if (status !== "waiting_on_human") return;
    // An approval (or a custom tool's result) still awaited when the record is written; one answered
    // already asks nothing of the receiver.
    const state = await this.log.existingState(sessionId);
    const waiting = state?.status === "waiting_on_human" && state.turn ? blockingEventIds(state.turn) : [];
    if (waiting.length > 0) {
      await this.notices.notify(
        identity.orgId,
        "session.requires_action",
        `${sessionId}:${state!.turn!.id}:${waiting.join(",")}`,
        { ...base, event_ids: waiting },
        now,
      );
    }
  }
}
