/**
 * One turn, followed from the events it writes: `on("text")` as the answer streams, `finalText()`,
 * `finalMessage()` and `done()` when it stops, with the stop reason and the usage. It reads the
 * session's resuming stream from the prompt's sequence, so it survives reconnects; the text comes from
 * the durable `agent.message` events, so deltas missed across a disconnect (they are live-only) lose
 * nothing of the answer.
 */
import { AgentSessionsError } from "./errors.js";
import type { EventStream } from "./event-stream.js";
import { textOf, type Event, type EventOf, type StopReason, type Usage } from "./events.js";

/** How a turn ended. */
export interface TurnResult {
  sessionId: string;
  turnId: string;
  /** Why it stopped: `end_turn`, `requires_action` (an approval, a custom tool, a question), `error`, `budget_exceeded`. */
  stopReason: StopReason;
  /** The turn's usage (tokens, cost, latency), from its `session.status_idle`. */
  usage: Usage | undefined;
  /** The text of the turn's last complete `agent.message` ("" when it wrote none). */
  text: string;
  /** Its last complete `agent.message`, if any. */
  message: EventOf<"agent.message"> | undefined;
  /** The turn's durable events, in sequence order. */
  events: Event[];
}

interface Listeners {
  /** A piece of the answer as it streams, and the message's text so far. */
  text: (delta: string, snapshot: string) => void;
  /** A complete `agent.message` of the turn. */
  message: (message: EventOf<"agent.message">) => void;
  /** Every event of the turn, live-only frames included. */
  event: (event: Event) => void;
}

/** Finds the turn a prompt started (a queued prompt's turn starts later): the prompt event's `turnId`, read again when needed. */
export type TurnOf = () => Promise<string | null>;

export class TurnStream {
  private readonly listeners: { [K in keyof Listeners]: Listeners[K][] } = { text: [], message: [], event: [] };
  private readonly result: Promise<TurnResult>;
  private snapshot = "";

  constructor(
    private readonly sessionId: string,
    stream: EventStream,
    /** The prompt's turn once the send is answered (null when it is found later: a queued prompt); a failed send ends the following. */
    prompt: Promise<string | null>,
    turnOf: TurnOf,
    private readonly abort: AbortController,
  ) {
    prompt.catch((err: unknown) => abort.abort(err));
    this.result = this.follow(stream, prompt, turnOf);
    this.result.catch(() => undefined); // the caller's await sees it
  }

  on<K extends keyof Listeners>(name: K, listener: Listeners[K]): this {
    this.listeners[name].push(listener);
    return this;
  }

  /** Resolves when the turn stops. */
  done(): Promise<TurnResult> {
    return this.result;
  }

  async finalText(): Promise<string> {
    return (await this.result).text;
  }

  async finalMessage(): Promise<EventOf<"agent.message"> | undefined> {
    return (await this.result).message;
  }

  /** Stops following (the turn goes on in the service); `done()` rejects. */
  cancel(): void {
    this.abort.abort(new AgentSessionsError("the turn was no longer followed"));
  }

  private emit<K extends keyof Listeners>(name: K, ...args: Parameters<Listeners[K]>): void {
    for (const listener of this.listeners[name]) (listener as (...a: Parameters<Listeners[K]>) => void)(...args);
  }

  private async follow(stream: EventStream, prompt: Promise<string | null>, turnOf: TurnOf): Promise<TurnResult> {
    // Undefined until the send is answered: the stream may be read from before the prompt was sent.
    let turnId: string | null | undefined;
    const events: Event[] = [];
    try {
      for await (const event of stream) {
        if (turnId === undefined) turnId = await prompt;
        if (turnId === null && event.type === "session.status_running") turnId = (await turnOf()) ?? null;
        if (turnId === null || event.turnId !== turnId) continue;
        this.emit("event", event);
        if (event.sequence === null) {
          if (event.type === "agent.message" && event.payload.delta) this.delta(textOf(event.payload.content));
          continue;
        }
        events.push(event);
        if (event.type === "agent.message") this.complete(event);
        if (event.type === "session.status_idle") {
          const messages = events.filter((e): e is EventOf<"agent.message"> => e.type === "agent.message");
          const message = messages.at(-1);
          return {
            sessionId: this.sessionId,
            turnId,
            stopReason: event.payload.stop_reason,
            usage: event.usage,
            text: message ? textOf(message.payload.content) : "",
            message,
            events,
          };
        }
      }
    } finally {
      this.abort.abort();
    }
    throw this.abort.signal.reason instanceof Error ? this.abort.signal.reason : new AgentSessionsError("the event stream ended before the turn stopped");
  }

  private delta(text: string): void {
    this.snapshot += text;
    this.emit("text", text, this.snapshot);
  }

  /**
   * A complete message: what its deltas did not bring at its end (all of it, when none came) is told as
   * text too. Deltas missed before others arrived (the stream connected while the model was writing)
   * cannot be told in order any more: the complete message, `on("message")`, carries the whole text.
   */
  private complete(message: EventOf<"agent.message">): void {
    const text = textOf(message.payload.content);
    if (text.startsWith(this.snapshot) && text.length > this.snapshot.length) this.delta(text.slice(this.snapshot.length));
    this.snapshot = "";
    this.emit("message", message);
  }
}
