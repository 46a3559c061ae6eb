/** WebhookEventType: what an organization's webhook endpoint can be sent (`src/webhooks/domain/webhooks.ts` holds their rules). */
export const WEBHOOK_EVENT_TYPES = ["session.status_changed", "session.requires_action", "automation_run.finished", "deployment.status_changed"] as const;

export const webhookEventTypeSchema = { $id: "webhook-event-type", title: "WebhookEventType", enum: WEBHOOK_EVENT_TYPES } as const;
