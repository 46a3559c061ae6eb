/**
 * This process's own appends to live streams, handed to its shared reader (`stream-reader.ts`) as soon
 * as their append answers: a subscriber in the process that wrote a frame gets it without waiting for a
 * blocked XREAD to wake and come back. Appends made before the process has a reader (no SSE client yet)
 * have nobody here to reach. Entries are given as a read would return them.
 */
import type { Logger } from "../../log.js";
import type { Keys } from "../../redis/keys.js";
import type { StreamEntry, StreamReader } from "./stream-reader.js";

export class LiveEcho {
  private reader: StreamReader | null = null;

  constructor(
    private readonly keys: Keys,
    private readonly log: Logger,
  ) {}

  attach(reader: StreamReader): StreamReader {
    this.reader = reader;
    return reader;
  }

  /** `afterId`: the session's live stream's last id before the append ("0-0" when it was empty); `entries` is called only when someone here takes them. */
  appended(sessionId: string, afterId: string, entries: () => StreamEntry[]): void {
    try {
      this.reader?.offer(this.keys.shardOf(sessionId), this.keys.sessionLive(sessionId), afterId, entries);
    } catch (err) {
      // The append stands whatever its delivery here did; the reader's own read still brings its entries.
      this.log.warn("could not hand an append to this process's stream reader", { sessionId, err });
    }
  }
}
