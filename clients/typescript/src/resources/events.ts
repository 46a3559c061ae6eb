/**
 * `client.events`: send, list and stream a session's events, and follow a turn. Also callable as
 * `client.events(sessionId, options)`, the stream, as before the resource methods existed.
 */
import type { Api } from "../api.js";
import { EventStream, type EventStreamOptions, type StreamPosition, type StreamTarget } from "../event-stream.js";
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

/** Sessions whose last followed position is kept. */
const REMEMBERED_SESSIONS = 1000;

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

  // Where each session's last followed turn left its stream (a few sessions): the next turn's stream
  // opens there before its prompt is sent, so none of the turn's live deltas is missed.
  const positions = new Map<string, StreamPosition>();
  const remember = (sessionId: string, position: StreamPosition) => {
    positions.delete(sessionId);
    positions.set(sessionId, position);
    if (positions.size > REMEMBERED_SESSIONS) positions.delete(positions.keys().next().value!);
  };

  // The first turn followed on a session: a history of one page says where the log ends, so the stream
  // opens there before the send, as for a later turn (a longer history is followed from the send's answer).
  const historyEnd = async (sessionId: string, options: RequestOptions): Promise<StreamPosition | undefined> => {
    const page = await list(sessionId, { limit: 100 }, options);
    return page.pagination.hasMore ? undefined : { lastEventId: null, sequence: page.data.at(-1)?.sequence ?? 0 };
  };

  /** Sends a prompt and follows the turn it starts (or, sent `when_idle` to a busy session, the turn it starts later). */
  const sendAndStream = async (sessionId: string, prompt: Prompt, options: TurnOptions = {}): Promise<TurnStream> => {
    const abort = new AbortController();
    options.signal?.addEventListener("abort", () => abort.abort(options.signal!.reason), { once: true });
    let answered!: (events: Event[]) => void;
    let refused!: (err: unknown) => void;
    const answer = new Promise<Event[]>((resolve, reject) => ((answered = resolve), (refused = reject)));
    const promptOf = (accepted: Event[]) => accepted.findLast((e) => e.type === "user.message") ?? accepted[0]!;
    let connected!: () => void;
    const live = new Promise<void>((resolve) => (connected = resolve));
    const follow = (from: EventStreamOptions["from"]) =>
      stream(sessionId, {
        ...options.stream,
        from,
        signal: abort.signal,
        onState: (state) => {
          if (state.state === "live" || state.state === "closed") connected();
          options.stream?.onState?.(state);
        },
      });
    // A queued prompt is given its turn when the turn starts: read it again then.
    const turnOf = async () => {
      const sequence = promptOf(await answer).sequence!;
      return (await list(sessionId, { after: sequence - 1, limit: 1 })).data[0]?.turnId ?? null;
    };
    const turnIdOf = answer.then((accepted) => {
      const prompted = promptOf(accepted);
      return prompted.status === "queued" ? null : prompted.turnId;
    });
    const saved = positions.get(sessionId) ?? (await historyEnd(sessionId, { ...(options.signal ? { signal: options.signal } : {}) }));
    let events: EventStream;
    let turn: TurnStream;
    if (saved) {
      events = follow(saved);
      turn = new TurnStream(sessionId, events, turnIdOf, turnOf, abort);
      await live;
      try {
        if (abort.signal.aborted) throw abort.signal.reason;
        answered(await send(sessionId, bodyOf(prompt), options));
      } catch (err) {
        refused(err);
        throw err;
      }
    } else {
      const accepted = await send(sessionId, bodyOf(prompt), options);
      answered(accepted);
      events = follow({ sequence: accepted[0]!.sequence! - 1 });
      turn = new TurnStream(sessionId, events, turnIdOf, turnOf, abort);
    }
    turn.done().then(
      () => remember(sessionId, events.position),
      () => undefined,
    );
    return turn;
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
