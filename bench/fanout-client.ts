/**
 * The subscriber side of `fanout.ts`, run in a worker thread so it has its own event loop (and core):
 * opens N SSE connections to one session over raw TCP and finds each sample's marker in the bytes as
 * they arrive (no HTTP parser, no text decoding, no JSON), then reports when every connection has
 * received a sample, with the time each one received it. Times are `process.hrtime` (one monotonic
 * clock for all threads).
 */
import { connect, type Socket } from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import { MARKER, nowMs, type ClientOptions, type ClientReport } from "./fanout-protocol.js";

const { url, key, subscribers } = workerData as ClientOptions;
const port = parentPort!;
const marker = Buffer.from(MARKER);
const HASH = "#".charCodeAt(0);
const received = new Map<number, { at: Float64Array; count: number }>();
const sockets: Socket[] = [];

function record(sample: number, connection: number, at: number): void {
  let entry = received.get(sample);
  if (!entry) received.set(sample, (entry = { at: new Float64Array(subscribers), count: 0 }));
  entry.at[connection] = at;
  if (++entry.count === subscribers) {
    received.delete(sample);
    port.postMessage({ type: "sample", sample, receivedMs: entry.at } satisfies ClientReport);
  }
}

/** Markers in the bytes; a marker cut by a chunk boundary is completed by the next chunk. */
function scan(connection: number): (chunk: Buffer) => void {
  let tail: Buffer | null = null;
  return (chunk) => {
    const at = nowMs();
    const bytes = tail ? Buffer.concat([tail, chunk]) : chunk;
    tail = null;
    let i = bytes.indexOf(marker);
    for (; i >= 0; i = bytes.indexOf(marker, i + 1)) {
      const end = bytes.indexOf(HASH, i + marker.length);
      if (end < 0) break;
      record(Number(bytes.toString("latin1", i + marker.length, end)), connection, at);
    }
    // Keep an unfinished marker, or the bytes that could begin one.
    tail = i >= 0 ? bytes.subarray(i) : bytes.subarray(Math.max(0, bytes.length - marker.length + 1));
  };
}

const { hostname, port: tcpPort, pathname } = new URL(url);
const request = `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}\r\nx-api-key: ${key}\r\nAccept: text/event-stream\r\n\r\n`;
let opened = 0;
for (let connection = 0; connection < subscribers; connection++) {
  const socket = connect(Number(tcpPort), hostname, () => socket.write(request));
  sockets.push(socket);
  const onFrames = scan(connection);
  socket.once("data", (first: Buffer) => {
    if (!first.toString("latin1", 0, 12).startsWith("HTTP/1.1 200")) {
      port.postMessage({ type: "error", message: `stream → ${first.toString("latin1", 0, 40)}` } satisfies ClientReport);
      return;
    }
    socket.on("data", onFrames);
    onFrames(first);
    if (++opened === subscribers) port.postMessage({ type: "open" } satisfies ClientReport);
  });
  socket.on("error", (err) => port.postMessage({ type: "error", message: `stream ${connection}: ${err.message}` } satisfies ClientReport));
}

port.on("message", () => {
  for (const socket of sockets) socket.destroy();
  port.close();
});
