/**
 * A loopback HTTP server for the outbound guard's tests: it records every request it receives (so a
 * test can prove a refused request never arrived), redirects on demand, and streams an event stream
 * whose second event waits for the test's go-ahead (so a buffered body would never complete).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { listenLoopback } from "./mcp-tools.js";

export interface Seen {
  method: string;
  path: string;
  host: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

export interface OutboundTestServer {
  origin: string;
  port: number;
  seen: Seen[];
  /** Lets the pending `/stream` responses send their second event and end. */
  release(): void;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done).off("close", done);
      resolve();
    };
    res.on("drain", done).on("close", done);
  });
}

/** Writes what `next` gives (told how many bytes are left) until `bytes` are written, as the socket drains; then ends. */
async function sendChunks(res: ServerResponse, bytes: number, next: (left: number) => string): Promise<void> {
  let left = bytes;
  let chunk = "";
  while (left > 0) {
    const piece = next(left);
    chunk += piece;
    left -= piece.length;
    if (chunk.length < 64 * 1024 && left > 0) continue;
    if (!res.write(chunk)) await drainedOrClosed(res);
    chunk = "";
    if (res.destroyed) return;
  }
  res.end();
}

/**
 * Routes: `/redirect/<status>?to=<url>` answers that status with `to` as Location; `/chain/<n>`
 * redirects n more times (to `/chain/0`); `/close` answers and closes the connection; `/stream`
 * is an event stream (above); `/big` and `/events` send as many bytes as asked; anything else answers 200 with what it received, as JSON.
 */
export async function startOutboundServer(): Promise<OutboundTestServer> {
  const seen: Seen[] = [];
  let release: () => void = () => undefined;
  let released = new Promise<void>((resolve) => (release = resolve));
  const http = await listenLoopback(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const record: Seen = {
      method: req.method ?? "",
      path: url.pathname,
      host: req.headers.host ?? "",
      authorization: req.headers.authorization,
      contentType: req.headers["content-type"],
      body: await bodyOf(req),
    };
    seen.push(record);
    const redirect = /^\/redirect\/(\d{3})$/.exec(url.pathname);
    const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
    if (redirect) {
      res.writeHead(Number(redirect[1]), { location: url.searchParams.get("to") ?? "/" }).end();
    } else if (chain && Number(chain[1]) > 0) {
      res.writeHead(302, { location: `/chain/${Number(chain[1]) - 1}` }).end();
    } else if (url.pathname === "/stream") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
      res.write("data: first\n\n");
      await released;
      res.end("data: second\n\n");
    } else if (url.pathname === "/big") {
      // `bytes` of body in chunks of 64 KiB.
      res.writeHead(200, { "content-type": "application/octet-stream" });
      await sendChunks(res, Number(url.searchParams.get("bytes")), (left) => "x".repeat(Math.min(left, 64 * 1024)));
    } else if (url.pathname === "/events") {
      // `bytes` of events of `size` bytes each, split into lines; `ended=0` never ends one (no blank line).
      const size = Number(url.searchParams.get("size"));
      const ended = url.searchParams.get("ended") !== "0";
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
      const line = `data: ${"y".repeat(1000)}\r\n`;
      let inEvent = 0;
      await sendChunks(res, Number(url.searchParams.get("bytes")), () => {
        inEvent += line.length;
        if (!ended || inEvent < size) return line;
        inEvent = 0;
        return `${line}\r\n`;
      });
    } else if (url.pathname === "/close") {
      res.writeHead(200, { connection: "close", "content-type": "text/plain" }).end("closing");
    } else {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(record));
    }
  });
  const port = Number(new URL(http.origin).port);
  return {
    origin: http.origin,
    port,
    seen,
    release: () => {
      release();
      released = new Promise<void>((resolve) => (release = resolve));
    },
    close: http.close,
  };
}
