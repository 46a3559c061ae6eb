/** Envelopes of hand-written logs for the pure tests: numbered in the order made, from 1 after `restart`. */
import type { Envelope } from "../../src/sessions/domain/events.js";

let seq = 0;

export function restart(): void {
  seq = 0;
}

export function ev(type: string, payload: Record<string, unknown>, turnId: string | null = "turn_1", status: Envelope["status"] = "complete"): Envelope {
  seq++;
  return {
    id: `evt_${seq}`,
    type,
    sessionId: "ses_1",
    sequence: seq,
    turnId,
    status,
    payload: { type, ...payload },
    processedAt: null,
    createdAt: new Date(0).toISOString(),
  };
}

export const text = (t: string) => [{ type: "text", text: t }];
