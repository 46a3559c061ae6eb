/**
 * `client.events`: send, list and stream a session's events, and follow a turn. Also callable as
 * `client.events(sessionId, options)`, the stream, as before the resource methods existed.
 */
import type { Api } from "../api.js";
import { EventStream, type EventStreamOptions, type StreamTarget } from "../event-stream.js";
import { asEvents, type Event, type InboundEvent } from "../events.js";
import { sequencePages } from "../pagination.js";
import { init, ok, type Body, type Query, type RequestOptions } from "../request.js";
import { TurnStream, type TurnResult } from "../turn.js";

/** What starts a turn: a text, a `user.message` (with metadata or attachments), or the send's whole body. */
export type Prompt = string | InboundEvent | Body<"sendEvents">;

export interface TurnOptions extends RequestOptions {
  /** Passed to the stream that follows the turn (its reconnect waits, `onState`). */
  stream?: Omit<EventStreamOptions, "from" | "signal">;
}

const bodyOf = (prompt: Prompt): Body<"sendEvents"> =>
  typeof prompt === "string"
    ? { events: [{ type: "user.message", content: [{ type: "text", text: prompt }] }] }
    : "events" in prompt
      ? prompt
      : { events: [prompt] };

export function eventsResource(api: Api, target: Omit<StreamTarget, "sessionId">) {
  const path = (sessionId: string) => ({ path: { sessionId } });
  const stream = (sessionId: string, options?: EventStreamOptions) => new EventStream({ ...target, sessionId }, options);
  const send = async (sessionId: string, body: Body<"sendEvents">, options?: RequestOptions): Promise<Event[]> =>
    asEvents((await ok(api.POST("/v1/sessions/{sessionId}/events", { params: path(sessionId), body, ...init(options) }))).data);
  const list = (sessionId: string, query: Query<"listEvents"> = {}, options?: RequestOptions) =>
    sequencePages(async (after) => {
      const page = await ok(
        api.GET("/v1/sessions/{sessionId}/events", {
          params: { ...path(sessionId), query: { ...query, ...(after !== undefined ? { after } : {}) } },
          ...init(options),
        }),
      );
      return { ...page, data: asEvents(page.data) };
    });

  /** Sends a prompt and follows the turn it starts (or, sent `when_idle` to a busy session, the turn it starts later). */
  const sendAndStream = async (sessionId: string, prompt: Prompt, options: TurnOptions = {}): Promise<TurnStream> => {
    const accepted = await send(sessionId, bodyOf(prompt), options);
    const first = accepted[0]!;
    const prompted = accepted.findLast((e) => e.type === "user.message") ?? first;
    const abort = new AbortController();
    options.signal?.addEventListener("abort", () => abort.abort(options.signal!.reason), { once: true });
    const events = stream(sessionId, { ...options.stream, from: { sequence: first.sequence! - 1 }, signal: abort.signal });
    // A queued prompt is given its turn when the turn starts: read it again then.
    const turnOf = async () => (await list(sessionId, { after: prompted.sequence! - 1, limit: 1 })).data[0]?.turnId ?? null;
    return new TurnStream(sessionId, events, prompted.status === "queued" ? null : prompted.turnId, turnOf, abort);
  };

  return Object.assign(stream, {
    /** Sends 1..100 inbound events (`delivery: "when_idle"` queues prompts behind a running turn); the accepted events. */
    send,
    /** History in sequence order; awaited the first page, `for await` every event. */
    list,
    /** The session's events from `options.from` on (default its first), resuming after any disconnect. */
    stream,
    sendAndStream,
    /** Sends a prompt and resolves when its turn stops: the stop reason, the usage and the final text. */
    sendAndWait: async (sessionId: string, prompt: Prompt, options?: TurnOptions): Promise<TurnResult> =>
      (await sendAndStream(sessionId, prompt, options)).done(),
  });
}
export type EventsResource = ReturnType<typeof eventsResource>;
