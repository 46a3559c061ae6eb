/**
 * A session the benchmark watches over SSE and drives one turn at a time: POST a user.message, then
 * wait for the turn's `session.status_idle`.
 */
import { performance } from "node:perf_hooks";
import { sse, type Endpoint } from "./support.js";

export interface TurnTiming {
  /** POST sent → `session.status_idle` received, in ms. */
  ms: number;
  /** `performance.now()` when the POST's answer arrived. */
  answeredAt: number;
  /** The POST was refused by the message allowance (429); no turn ran. */
  limited: boolean;
}

export class WatchedSession {
  private idle: (() => void) | null = null;
  private count = 0;

  private constructor(
    private readonly service: Endpoint,
    readonly id: string,
  ) {}

  /** Creates a session and opens its stream from the start of its log, so no frame can be missed. */
  static async open(service: Endpoint, agentId: string, subjectId: string, signal: AbortSignal): Promise<WatchedSession> {
    const session = await service.post("/v1/sessions", { agentId, subjectId });
    const watched = new WatchedSession(service, String(session.id));
    await sse(
      `${service.base}/v1/sessions/${watched.id}/events/stream?after=0`,
      service.key,
      (event) => event === "session.status_idle" && watched.idle?.(),
      signal,
    );
    return watched;
  }

  /** One turn prompted by `text` (by default "turn N"). */
  async turn(text?: string): Promise<TurnTiming> {
    const idle = new Promise<void>((resolve) => (this.idle = resolve));
    const t0 = performance.now();
    const res = await fetch(`${this.service.base}/v1/sessions/${this.id}/events`, {
      method: "POST",
      headers: { "x-api-key": this.service.key, "content-type": "application/json" },
      body: JSON.stringify({ events: [{ type: "user.message", content: [{ type: "text", text: text ?? `turn ${++this.count}` }] }] }),
    });
    const answeredAt = performance.now();
    await res.arrayBuffer();
    if (res.status === 429) return { ms: 0, answeredAt, limited: true };
    if (res.status !== 202) throw new Error(`user.message → ${res.status}`);
    await idle;
    this.idle = null;
    return { ms: performance.now() - t0, answeredAt, limited: false };
  }
}
