/**
 * The chaos run's clients: requests to a random API process, retried through deaths and outages (with an
 * `Idempotency-Key`, the same on every retry), every answer counted; and one conversation per session,
 * driven by what the session's event stream (the TypeScript client, resuming with `Last-Event-ID`) shows.
 */
import { createAgentSessionsClient, type Event } from "@agent-sessions/client";
import { randomUUID } from "node:crypto";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)]!;

/** How long a step may wait for the session before it counts as stuck: past the longest takeover there can be. */
const STEP_TIMEOUT_MS = 150_000;

export interface Reply {
  status: number;
  body: Record<string, unknown> & { data?: { id: string; sequence: number | null }[] };
}

export class Api {
  /** Every answer, by status (retried attempts included). */
  readonly statuses = new Map<number, number>();
  /** Requests that got no answer (a process killed under them, a refused connection), then retried. */
  networkErrors = 0;
  /** Of those, the ones that waited out the attempt's 30 s without an answer (an accepted connection left silent). */
  timeouts = 0;
  /** Steps that got no answer at all before their time ran out. */
  readonly unanswered: string[] = [];
  /** 5xx answers other than 503, with what was asked. */
  readonly unexpected: string[] = [];
  /** Per session, the ids of the events answered 202. */
  readonly accepted = new Map<string, string[]>();

  constructor(
    readonly bases: string[],
    private readonly key: string,
  ) {}

  /** Sends until an answer other than 503 or 429 comes (or the step's time runs out: status 0 when none came at all). */
  async call(method: string, path: string, body?: unknown): Promise<Reply> {
    const idempotencyKey = randomUUID();
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    for (let attempt = 1; ; attempt++) {
      const headers: Record<string, string> = { "x-api-key": this.key, "idempotency-key": idempotencyKey };
      if (body !== undefined) headers["content-type"] = "application/json";
      try {
        const res = await fetch(pick(this.bases) + path, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        const parsed = (await res.json().catch(() => ({}))) as Reply["body"];
        this.statuses.set(res.status, (this.statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500 && res.status !== 503) this.unexpected.push(`${method} ${path} → ${res.status} ${JSON.stringify(parsed).slice(0, 200)}`);
        // A first attempt that died with its process holds the key until its lease ends: wait it out, as docs/api-guide.md says.
        const keyBusy = res.status === 409 && String(parsed.message ?? "").includes("is still running");
        if ((res.status !== 503 && res.status !== 429 && !keyBusy) || Date.now() > deadline) return { status: res.status, body: parsed };
      } catch (err) {
        this.networkErrors++;
        if ((err as Error).name === "TimeoutError") this.timeouts++;
        if (Date.now() > deadline) {
          this.unanswered.push(`${method} ${path}: no answer for ${STEP_TIMEOUT_MS / 1000} s (${attempt} attempts, last: ${(err as Error).message})`);
          return { status: 0, body: {} };
        }
      }
      await sleep(Math.min(2_000, 50 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random()));
    }
  }

  /** Sends events; the ids answered 202 are recorded for the end's check. */
  async send(sessionId: string, events: unknown[]): Promise<Reply> {
    const reply = await this.call("POST", `/v1/sessions/${sessionId}/events`, { events });
    if (reply.status === 202) this.accepted.get(sessionId)!.push(...(reply.body.data ?? []).map((e) => e.id));
    return reply;
  }
}

/** A session's event stream as one reader sees it, each event with the time it arrived. */
export class Watch {
  readonly events: { event: Event; at: number }[] = [];
  private wake: (() => void) | null = null;
  private readonly stopping = new AbortController();
  readonly done: Promise<void>;

  constructor(
    base: string,
    key: string,
    readonly sessionId: string,
  ) {
    const client = createAgentSessionsClient({ baseUrl: base, apiKey: key });
    const stream = client.events(sessionId, {
      liveFrames: false,
      idleTimeoutMs: 5_000,
      reconnect: { initialDelayMs: 50, maxDelayMs: 1_000 },
      signal: this.stopping.signal,
    });
    this.done = (async () => {
      for await (const event of stream) {
        this.events.push({ event, at: Date.now() });
        this.wake?.();
      }
    })();
  }

  /** The first event after `sequence` that `match` accepts; null when none came in time. */
  async next(sequence: number, match: (e: Event) => boolean, timeoutMs = STEP_TIMEOUT_MS): Promise<Event | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(({ event }) => event.sequence !== null && event.sequence > sequence && match(event));
      if (found) return found.event;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1_000));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Whether a turn is under way, as far as this reader has seen. */
  get midTurn(): boolean {
    const last = [...this.events].reverse().find(({ event }) => event.type === "session.status_running" || event.type === "session.status_idle");
    return last?.event.type === "session.status_running";
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.done.catch(() => undefined);
  }
}

const text = (t: string) => ({ type: "user.message", content: [{ type: "text", text: t }] });
const lastSequence = (reply: Reply) => Math.max(0, ...(reply.body.data ?? []).map((e) => e.sequence ?? 0));

export interface Tally {
  turns: number;
  approvals: number;
  toolResults: number;
  interrupts: number;
  /** Steps that did not see the session idle again in time. */
  stuck: string[];
}

/** Waits for the turn to end, answering what it asks on the way (an approval, a custom tool's result). */
async function finish(api: Api, watch: Watch, after: number, tally: Tally): Promise<void> {
  for (let sequence = after; ;) {
    const idle = await watch.next(sequence, (e) => e.type === "session.status_idle");
    if (!idle) {
      tally.stuck.push(`${watch.sessionId} after ${sequence}`);
      return;
    }
    sequence = idle.sequence!;
    const stop = (idle as { payload?: { stop_reason?: { type?: string; event_ids?: string[] } } }).payload?.stop_reason;
    if (stop?.type !== "requires_action") {
      tally.turns++;
      return;
    }
    const asked = watch.events.map((w) => w.event).filter((e) => stop.event_ids?.includes(e.id));
    const answers = asked.map((e) =>
      e.type === "agent.approval_request"
        ? (tally.approvals++, { type: "user.approval_response", approval_id: e.id, result: "allow" })
        : (tally.toolResults++, { type: "user.custom_tool_result", tool_use_id: e.id, content: [{ type: "text", text: "found" }] }),
    );
    if (answers.length === 0) {
      tally.stuck.push(`${watch.sessionId}: requires_action with nothing to answer at ${sequence}`);
      return;
    }
    const reply = await api.send(watch.sessionId, answers);
    sequence = Math.max(sequence, lastSequence(reply));
  }
}

/** One session's conversation until `until`: plain messages, interrupted slow turns, custom tools behind approvals. */
export async function converse(api: Api, watch: Watch, until: number, tally: Tally): Promise<void> {
  for (let n = 1; Date.now() < until; n++) {
    const r = Math.random();
    if (r < 0.5) {
      const reply = await api.send(watch.sessionId, [text(`/slow 200 message ${n}`)]);
      if (reply.status === 202) await finish(api, watch, lastSequence(reply), tally);
      else await sleep(500);
    } else if (r < 0.7) {
      const reply = await api.send(watch.sessionId, [text(`/slow 3000 long ${n}`)]);
      if (reply.status !== 202) {
        await sleep(500);
        continue;
      }
      const after = lastSequence(reply);
      await watch.next(after, (e) => e.type === "session.status_running", 10_000);
      const stop = await api.send(watch.sessionId, [{ type: "user.interrupt" }]);
      if (stop.status === 202) tally.interrupts++;
      await finish(api, watch, after, tally);
    } else {
      const reply = await api.send(watch.sessionId, [text(`/tool lookup {"order":"A-${n}"}`)]);
      if (reply.status === 202) await finish(api, watch, lastSequence(reply), tally);
      else await sleep(500);
    }
  }
}
