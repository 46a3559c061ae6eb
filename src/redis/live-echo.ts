/**
 * This process's own appends to live streams, handed to its shared reader (`stream-reader.ts`) as soon
 * as their append answers: a subscriber in the process that wrote a frame gets it without waiting for a
 * blocked XREAD to wake and come back. Appends made before the process has a reader (no SSE client yet)
 * have nobody here to reach. Entries are given as a read would return them.
 */
import type { Keys } from "./keys.js";
import type { StreamEntry, StreamReader } from "./stream-reader.js";

export class LiveEcho {
  private reader: StreamReader | null = null;

  constructor(private readonly keys: Keys) {}

  attach(reader: StreamReader): StreamReader {
    this.reader = reader;
    return reader;
  }

  /** `afterId`: the session's live stream's last id before the append ("0-0" when it was empty); `entries` is called only when someone here takes them. */
  appended(sessionId: string, afterId: string, entries: () => StreamEntry[]): void {
    this.reader?.offer(this.keys.shardOf(sessionId), this.keys.sessionLive(sessionId), afterId, entries);
  }
}
