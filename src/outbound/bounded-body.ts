/**
 * A bound on what an outside server's answer may make us hold: a body of at most `limit` bytes, or, for
 * an event stream (which may rightly stay open for hours), events of at most `limit` bytes each. The
 * MCP SDK and the token exchange read what they are given whole, so without it any server a tenant
 * names could fill a worker's memory, shared by every organization.
 */

/** The most one answer (an event stream: one event) may hold. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

const CR = 13;
const LF = 10;

/**
 * Counts an event stream's bytes since its last event ended (a blank line: two line ends in a row, each
 * CRLF, LF or CR, as the SSE format has them), across chunk boundaries.
 */
class EventSizes {
  private since = 0;
  private lineEmpty = false;
  private afterCr = false;

  /** The bytes of the event still open once `chunk` is taken. */
  add(chunk: Uint8Array): number {
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === LF && this.afterCr) {
        this.afterCr = false;
        continue;
      }
      if (b === CR || b === LF) {
        if (this.lineEmpty) {
          this.since = 0;
          start = i + 1;
        }
        this.lineEmpty = true;
        this.afterCr = b === CR;
      } else {
        this.lineEmpty = false;
        this.afterCr = false;
      }
    }
    this.since += chunk.length - start;
    return this.since;
  }
}

/** `body` passed through, failing (as a fetch body fails: a TypeError) once it holds more than `limit`. */
export function boundedBody(body: ReadableStream<Uint8Array>, eventStream: boolean, host: string, limit = MAX_RESPONSE_BYTES): ReadableStream<Uint8Array> {
  const events = eventStream ? new EventSizes() : null;
  let total = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.length;
        const held = events ? events.add(chunk) : total;
        if (held <= limit) controller.enqueue(chunk);
        else controller.error(new TypeError(`fetch failed: ${host} sent ${events ? "an event" : "an answer"} over ${limit} bytes`));
      },
    }),
  );
}
