/**
 * The client side of `run.ts` (a), in a worker thread so it has an event loop of its own: over raw TCP
 * (no HTTP parser, no text decoding, no JSON) it sends one POST at a time on a kept-alive connection and
 * times it until its marker arrives on an open SSE stream of the session, then waits for the turn to end
 * (`session.status_idle`) before the next. Without a stream it times each POST until its answer: the
 * baseline of HTTP alone, measured the same way. Times are `process.hrtime`, one clock for every thread of
 * the process, so a sample can be set beside the service's collections (`run.ts`).
 */
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { serveInThread } from "./threads.js";

export interface FirstFrameOptions {
  /** `http://host:port/path` of the POST. */
  postUrl: string;
  /** The session's stream; absent: time the POST's answer only. */
  streamUrl?: string;
  key: string;
  samples: number;
  /** The POST's body with `#N#` where the sample's number goes. */
  body: string;
  /** Whether each POST starts a turn to wait for (default: it does when there is a stream). */
  startsTurn?: boolean;
  /** The first sample's number (default 0), so rounds on one session never reuse a marker. */
  first?: number;
  /**
   * Whether to note, for each sample, how long the process's main thread (the service's, when it runs
   * in this process) ran and waited for a core, and how long this client's own thread waited for one:
   * Linux's `schedstat`, read before and after the sample.
   */
  mainThreadWaits?: boolean;
  /** With `mainThreadWaits`: the Redis server's pid, when it runs on this machine, to note how long its main thread waited for a core too. */
  redisPid?: number;
}

/** One sample: when its POST was written (`process.hrtime`, ms) and how long until its frame (or answer), ms. */
export interface Sample {
  start: number;
  ms: number;
  /** With `mainThreadWaits`: ms the main thread was ready to run but not running, during the sample (NaN off Linux). */
  waited?: number;
  /** With `mainThreadWaits`: ms the main thread ran on a core during the sample (NaN off Linux). */
  ran?: number;
  /** With `mainThreadWaits`: ms this client's thread was ready to run but not running, during the sample (NaN off Linux). */
  clientWaited?: number;
  /** With `redisPid`: ms the Redis server's main thread was ready to run but not running, during the sample. */
  redisWaited?: number;
}

const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

interface ThreadTimes {
  ran: number;
  waited: number;
}

/** A thread's time on a core and waiting on a run queue so far, ms (`schedstat`'s first two fields, in ns); NaN where Linux's `schedstat` is not. */
function threadTimes(path: string): ThreadTimes {
  try {
    const [ran, waited] = readFileSync(path, "utf8").split(" ").map(Number);
    return { ran: ran! / 1e6, waited: waited! / 1e6 };
  } catch {
    return { ran: Number.NaN, waited: Number.NaN };
  }
}
const mainThreadTimes = () => threadTimes(`/proc/${process.pid}/task/${process.pid}/schedstat`);
const clientThreadTimes = () => threadTimes("/proc/thread-self/schedstat");
const redisThreadTimes = (pid: number | undefined) => (pid ? threadTimes(`/proc/${pid}/task/${pid}/schedstat`) : undefined);
const IDLE = Buffer.from("event: session.status_idle");
const HEADER_END = Buffer.from("\r\n\r\n");

/** Calls `onBytes` with everything received so far; it returns how many bytes it consumed. */
function reader(socket: Socket, onBytes: (bytes: Buffer) => number): void {
  let held: Buffer = Buffer.alloc(0);
  socket.on("data", (chunk: Buffer) => {
    held = held.length ? Buffer.concat([held, chunk]) : chunk;
    held = held.subarray(onBytes(held));
  });
}

function open(url: URL): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
    socket.setNoDelay(true);
    socket.once("error", reject);
  });
}

async function main(options: FirstFrameOptions): Promise<Sample[]> {
  const post = new URL(options.postUrl);
  const posts = await open(post);
  // One answer at a time: its headers, then Content-Length bytes of body.
  let answered: (() => void) | null = null;
  reader(posts, (bytes) => {
    const end = bytes.indexOf(HEADER_END);
    if (end < 0) return 0;
    const length = Number(/content-length: *(\d+)/i.exec(bytes.toString("latin1", 0, end))?.[1] ?? 0);
    if (bytes.length < end + 4 + length) return 0;
    if (!bytes.toString("latin1", 0, 12).startsWith("HTTP/1.1 20")) throw new Error(`POST → ${bytes.toString("latin1", 0, end)}`);
    answered?.();
    return end + 4 + length;
  });

  let marker: Buffer | null = null;
  let onMarker: (() => void) | null = null;
  let onIdle: (() => void) | null = null;
  if (options.streamUrl) {
    const url = new URL(options.streamUrl);
    const stream = await open(url);
    stream.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nx-api-key: ${options.key}\r\nAccept: text/event-stream\r\n\r\n`);
    const opened = new Promise<Buffer>((resolve) => stream.once("data", resolve));
    const head = await opened;
    if (!head.toString("latin1", 0, 12).startsWith("HTTP/1.1 200")) throw new Error(`stream → ${head.toString("latin1", 0, 40)}`);
    // The stream follows the live stream once its feed has started.
    await new Promise((r) => setTimeout(r, 200));
    // Only the search's tail is kept: a marker or an idle frame cut by a chunk boundary is found in the next chunk.
    reader(stream, (bytes) => {
      let at = 0;
      for (;;) {
        if (marker && onMarker) {
          const found = bytes.indexOf(marker, at);
          if (found < 0) break;
          at = found + marker.length;
          onMarker();
          onMarker = null;
        } else if (onIdle) {
          const found = bytes.indexOf(IDLE, at);
          if (found < 0) break;
          at = found + IDLE.length;
          onIdle();
          onIdle = null;
        } else break;
      }
      return Math.max(at, bytes.length - 64);
    });
  }

  const samples: Sample[] = [];
  for (let n = options.first ?? 0, i = 0; i < options.samples; i++, n++) {
    const body = Buffer.from(options.body.replace("#N#", `#${n}#`));
    const request = Buffer.concat([
      Buffer.from(
        `POST ${post.pathname} HTTP/1.1\r\nHost: ${post.host}\r\nx-api-key: ${options.key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
      ),
      body,
    ]);
    marker = Buffer.from(`#${n}#`);
    const answer = new Promise<void>((resolve) => (answered = resolve));
    const frame = options.streamUrl ? new Promise<void>((resolve) => (onMarker = resolve)) : answer;
    const idle = options.streamUrl && options.startsTurn !== false ? new Promise<void>((resolve) => (onIdle = resolve)) : answer;
    const mainBefore = options.mainThreadWaits ? mainThreadTimes() : undefined;
    const clientBefore = options.mainThreadWaits ? clientThreadTimes() : undefined;
    const redisBefore = options.mainThreadWaits ? redisThreadTimes(options.redisPid) : undefined;
    const t0 = nowMs();
    posts.write(request);
    await frame;
    const sample: Sample = { start: t0, ms: nowMs() - t0 };
    if (mainBefore && clientBefore) {
      const main = mainThreadTimes();
      sample.waited = main.waited - mainBefore.waited;
      sample.ran = main.ran - mainBefore.ran;
      sample.clientWaited = clientThreadTimes().waited - clientBefore.waited;
      if (redisBefore) sample.redisWaited = redisThreadTimes(options.redisPid)!.waited - redisBefore.waited;
    }
    samples.push(sample);
    await Promise.all([answer, idle]);
  }
  posts.destroy();
  return samples;
}

serveInThread(main);
