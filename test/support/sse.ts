/** A small SSE client over fetch, recording every frame and comment, for black-box stream tests; frames are checked against the served document. */
import { connect, type Socket } from "node:net";
import { checkResponse, contractOf } from "./contract.js";
import type { Reply } from "./server.js";

export interface SseFrame {
  event: string;
  id: string | undefined;
  data: any;
}

export interface SseConnection {
  status: number;
  frames: SseFrame[];
  comments: string[];
  /** Resolves with the first frame index where `predicate` holds, waiting up to `timeoutMs`. */
  waitFor(predicate: (frames: SseFrame[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
  closed: Promise<void>;
}

export async function openSse(url: string, key: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { "x-api-key": key, accept: "text/event-stream", ...headers }, signal: controller.signal });
  const { origin, pathname } = new URL(url);
  const contract = await contractOf(origin);
  if (res.status !== 200) await checkResponse(origin, "GET", pathname, res, await res.json());
  else await checkResponse(origin, "GET", pathname, res, undefined);
  /** Frames whose data the document's Event schema refuses. */
  const violations: string[] = [];
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());

  const closed = (async () => {
    if (!res.body || res.status !== 200) return;
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame: Partial<SseFrame> = {};
          let data = "";
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments.push(line.slice(1).trim());
            else if (line.startsWith("event: ")) frame.event = line.slice(7);
            else if (line.startsWith("id: ")) frame.id = line.slice(4);
            else if (line.startsWith("data: ")) data += line.slice(6);
          }
          if (frame.event) {
            const parsed = JSON.parse(data);
            const problem = contract.frameProblem(parsed);
            if (problem) violations.push(problem);
            frames.push({ event: frame.event, id: frame.id, data: parsed });
          }
          notify();
        }
      }
    } catch {
      /* aborted by close() */
    }
    notify();
  })();

  return {
    status: res.status,
    frames,
    comments,
    closed,
    close: () => {
      controller.abort();
      if (violations.length > 0) throw new Error(`contract: ${violations[0]}`);
    },
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (violations.length > 0) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`contract: ${violations[0]}`));
          } else if (predicate(frames)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`SSE wait timed out with ${frames.length} frames: ${frames.map((f) => f.event).join(", ")}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

/** A client that sends its request and then reads nothing: what it is sent piles up. */
export function stalledStream(url: string, key: string): Socket {
  const { hostname, port, pathname, search } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}\r\nx-api-key: ${key}\r\n\r\n`);
  return socket;
}

/** GET of an SSE stream: a refusal comes back with its JSON body; a 200 stream is closed at once. */
export async function getStream(url: string, key: string, headers: Record<string, string> = {}): Promise<Reply<any>> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { "x-api-key": key, accept: "text/event-stream", ...headers }, signal: controller.signal });
  if (res.status === 200) {
    controller.abort();
    return { status: 200, headers: res.headers, body: "(event stream)" };
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* stays text */
  }
  return { status: res.status, headers: res.headers, body };
}
