/**
 * The subscriber side of `fanout.ts`, run in a worker thread so it has its own event loop (and core):
 * opens N SSE connections to one session with node:http, finds each sample's marker in the frames with
 * string searches (no JSON parsing), and reports when every connection has received a sample, with the
 * time each one received it. Times are `process.hrtime` (one monotonic clock for all threads).
 */
import { Agent, get, type IncomingMessage } from "node:http";
import { parentPort, workerData } from "node:worker_threads";
import { MARKER, nowMs, type ClientOptions, type ClientReport } from "./fanout-protocol.js";

const { url, key, subscribers } = workerData as ClientOptions;
const port = parentPort!;
const received = new Map<number, { at: Float64Array; count: number }>();
const sockets: IncomingMessage[] = [];

function record(sample: number, connection: number, at: number): void {
  let entry = received.get(sample);
  if (!entry) received.set(sample, (entry = { at: new Float64Array(subscribers), count: 0 }));
  entry.at[connection] = at;
  if (++entry.count === subscribers) {
    received.delete(sample);
    port.postMessage({ type: "sample", sample, receivedMs: entry.at } satisfies ClientReport);
  }
}

/** Frames may straddle chunks: only the text after the last complete frame is kept. */
function onChunks(res: IncomingMessage, connection: number): void {
  let pending = "";
  res.setEncoding("utf8");
  res.on("data", (chunk: string) => {
    const at = nowMs();
    const text = pending + chunk;
    const end = text.lastIndexOf("\n\n");
    pending = end < 0 ? text : text.slice(end + 2);
    for (let i = text.indexOf(MARKER); i >= 0 && i < end; i = text.indexOf(MARKER, i + 1)) {
      const start = i + MARKER.length;
      record(Number(text.slice(start, text.indexOf("#", start))), connection, at);
    }
  });
}

// One socket per subscriber, as browsers would open them; no pooling limit.
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
let opened = 0;
for (let connection = 0; connection < subscribers; connection++) {
  const req = get(url, { agent, headers: { "x-api-key": key, accept: "text/event-stream" } }, (res) => {
    if (res.statusCode !== 200) {
      port.postMessage({ type: "error", message: `stream → ${res.statusCode}` } satisfies ClientReport);
      return;
    }
    sockets.push(res);
    onChunks(res, connection);
    if (++opened === subscribers) port.postMessage({ type: "open" } satisfies ClientReport);
  });
  req.on("error", (err) => port.postMessage({ type: "error", message: `stream ${connection}: ${err.message}` } satisfies ClientReport));
}

port.on("message", () => {
  for (const res of sockets) res.destroy();
  agent.destroy();
  port.close();
});
