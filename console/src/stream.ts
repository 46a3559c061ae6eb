/**
 * A session's live stream over fetch, since `EventSource` cannot send the key in a header (and the key
 * must never be in a URL). Frames are parsed by `eventsource-parser`. After a drop it reconnects with
 * `Last-Event-ID` (the last frame's `id`, kept opaque) and `after` (the last durable sequence seen), so
 * it resumes with no gap; the server prefers the cursor, and `after` serves when no frame had one yet.
 */
import { createParser } from "eventsource-parser";
import type { Api } from "./api.js";
import type { EventEnvelope } from "./types.js";

export type StreamState = "connecting" | "live" | "reconnecting" | "closed";

export interface StreamHandlers {
  onEvent(event: EventEnvelope): void;
  onState(state: StreamState, detail?: string): void;
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 15_000;

class Fatal extends Error {}

export interface LiveStream {
  close(): void;
}

export function openStream(api: Api, sessionId: string, after: number, handlers: StreamHandlers): LiveStream {
  const abort = new AbortController();
  let lastEventId: string | null = null;
  let lastSequence = after;
  let retryMs = FIRST_RETRY_MS;

  async function connectOnce(): Promise<void> {
    const headers: Record<string, string> = { accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) };
    const res = await api.request(`/v1/sessions/${encodeURIComponent(sessionId)}/events/stream?after=${lastSequence}`, { headers, signal: abort.signal });
    if (res.status === 400 && lastEventId) {
      // A cursor the server no longer reads: resume from the sequence instead.
      lastEventId = null;
      return;
    }
    // The key refused, the session gone: retrying would not help.
    if (res.status >= 400 && res.status < 500 && res.status !== 429) throw new Fatal(`the stream answered HTTP ${res.status}`);
    if (!res.ok || !res.body) throw new Error(`the stream answered HTTP ${res.status}`);
    handlers.onState("live");
    retryMs = FIRST_RETRY_MS;
    const parser = createParser({
      onEvent(message) {
        if (message.id) lastEventId = message.id;
        const event = JSON.parse(message.data) as EventEnvelope;
        if (typeof event.sequence === "number" && event.sequence > lastSequence) lastSequence = event.sequence;
        handlers.onEvent(event);
      },
      onRetry(ms) {
        retryMs = Math.min(Math.max(ms, FIRST_RETRY_MS), MAX_RETRY_MS);
      },
    });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(value);
    }
  }

  async function run(): Promise<void> {
    handlers.onState("connecting");
    while (!abort.signal.aborted) {
      let detail = "the stream ended";
      try {
        await connectOnce();
      } catch (err) {
        if (abort.signal.aborted) break;
        detail = err instanceof Error ? err.message : String(err);
        if (err instanceof Fatal) {
          handlers.onState("closed", detail);
          return;
        }
      }
      if (abort.signal.aborted) break;
      handlers.onState("reconnecting", detail);
      await new Promise((resolve) => setTimeout(resolve, retryMs));
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    }
    handlers.onState("closed");
  }

  void run();
  return { close: () => abort.abort() };
}
