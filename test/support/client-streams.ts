/** Reading the TypeScript client's event streams in the background, as an application would. */
import type { Event, EventStream } from "@agent-sessions/client";

export interface Reading {
  /** Every event the iterator gave, in order. */
  events: Event[];
  /** The durable ones (with a sequence). */
  durable(): Event[];
  /** Settles when the iteration ends; rejects with what ended it. */
  done: Promise<void>;
}

export function read(stream: EventStream): Reading {
  const events: Event[] = [];
  const done = (async () => {
    for await (const event of stream) events.push(event);
  })();
  done.catch(() => undefined); // awaited by the test that cares
  return { events, durable: () => events.filter((e) => e.sequence !== null), done };
}
