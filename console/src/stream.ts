/**
 * A session's live events for the session view, read by the client package's resuming stream (fetch
 * with the key in a header, `Last-Event-ID` and `after`, backoff): its states told to the view's badge,
 * its events pushed to the view, until the view closes it.
 */
import { ApiError, type StreamState as ClientStreamState } from "@agent-sessions/client";
import type { Api } from "./api.js";
import { describe } from "./problems.js";
import type { EventEnvelope } from "./types.js";

export type StreamState = ClientStreamState["state"];

export interface StreamHandlers {
  onEvent(event: EventEnvelope): void;
  /** `detail`: why it is reconnecting, or why it closed when a refusal ended it. */
  onState(state: StreamState, detail?: string): void;
}

export interface LiveStream {
  close(): void;
}

const reason = describe;

function detailOf(s: ClientStreamState): string | undefined {
  if (s.state === "reconnecting") return reason(s.cause);
  if (s.state === "closed" && s.error !== undefined) return reason(s.error);
  return undefined;
}

/** The events after sequence `after` (the last one history gave). */
export function openStream(api: Api, sessionId: string, after: number, handlers: StreamHandlers): LiveStream {
  const abort = new AbortController();
  const stream = api.events(sessionId, { from: { sequence: after }, signal: abort.signal, onState: (s) => handlers.onState(s.state, detailOf(s)) });
  void (async () => {
    try {
      for await (const event of stream) handlers.onEvent(event);
    } catch (err) {
      // A refusal that retrying cannot change (a key refused, a session gone) was told as `closed`;
      // anything else is a fault of the console's own, left to surface.
      if (!(err instanceof ApiError)) throw err;
    }
  })();
  return { close: () => abort.abort() };
}
