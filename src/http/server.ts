/**
 * The HTTP server of an app. Requests Node's HTTP parser refuses before the app sees them (a malformed
 * request line or header, headers over the size limit) are answered in the service's error shape, not
 * with Node's empty bodies.
 */
import { createServer, maxHeaderSize, STATUS_CODES, type Server } from "node:http";
import type { Duplex } from "node:stream";
import type Koa from "koa";
import { AppError } from "../errors.js";
import { errorResponse } from "./errors.js";

function refusal(err: NodeJS.ErrnoException, limit: number): AppError | null {
  if (err.code === "HPE_HEADER_OVERFLOW") return new AppError("headers_too_large", `headers: must be at most ${limit} bytes in all`);
  if (err.code?.startsWith("HPE_")) return new AppError("validation_error", "request: must be a well-formed HTTP/1.1 request");
  return null;
}

function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, limit: number): void {
  const refused = refusal(err, limit);
  if (!refused || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, body } = errorResponse(refused);
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
  );
}

export function createHttpServer(app: Koa<never>): Server {
  const server = createServer(app.callback());
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, maxHeaderSize));
  return server;
}
