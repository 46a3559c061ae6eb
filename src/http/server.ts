/**
 * The HTTP server of an app. Requests Node's HTTP parser refuses before the app sees them (a malformed
 * request line or header, headers or chunk extensions over their limits, a request that does not
 * arrive in time) are answered in the service's error shape with Node's statuses, not Node's empty
 * bodies; and, as Node does, only when no response on the connection has begun.
 */
import { createServer, maxHeaderSize, STATUS_CODES, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type Koa from "koa";
import { AppError } from "../errors.js";
import { errorResponse } from "./errors.js";

function refusal(err: NodeJS.ErrnoException): AppError {
  switch (err.code) {
    case "HPE_HEADER_OVERFLOW":
      return new AppError("headers_too_large", `headers: must be at most ${maxHeaderSize} bytes in all`);
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new AppError("payload_too_large", "body: chunk extensions are too large");
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new AppError("request_timeout", "request: did not arrive in time");
    default:
      return new AppError("validation_error", "request: must be a well-formed HTTP/1.1 request");
  }
}

/** The response the connection is sending, if any (Node keeps it on the socket). */
function inFlight(socket: Duplex): ServerResponse | undefined {
  return (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
}

function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || inFlight(socket)?.headersSent) {
    socket.destroy(err);
    return;
  }
  const { status, body } = errorResponse(refusal(err));
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
  );
}

export function createHttpServer(app: Koa<never>): Server {
  const server = createServer(app.callback());
  server.on("clientError", answerClientError);
  return server;
}
