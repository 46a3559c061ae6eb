/**
 * What an unread request body leaves on its connection. A request answered before its body was read
 * to its end (refused for its size, its encoding, its key or its type; or a route that reads no body)
 * still has the rest of that body on the wire, ahead of the connection's next request. That rest is
 * read and thrown away, up to a bound, before the answer goes out: when the body ends within the
 * bound the connection is kept; when it does not, the answer carries `Connection: close` and the
 * connection is closed after it, gently. Either way the next request is answered or never sent on
 * it, and no body is read without bound (Node's own clean-up reads an unread body to its end).
 */
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Middleware } from "koa";

/** How much of an unread body is read and thrown away to keep its connection: a small request's worth. */
export const DRAIN_LIMIT_BYTES = 4 * 1024 * 1024;

/** How long a connection closed under a body still coming goes on reading (and throwing away) after its answer. */
const LINGER_MS = 5_000;

/**
 * Reads and throws away the rest of `req`'s body: true when it ended within `limit` bytes. Past the
 * limit it goes on throwing away what still comes until the connection closes (right after the
 * answer), so that the answer is not overtaken by a reset for bytes left unread.
 */
function drain(req: IncomingMessage, limit: number): Promise<boolean> {
  return new Promise((resolve) => {
    let seen = 0;
    req.on("data", (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limit) resolve(false);
    });
    req.once("end", () => resolve(true));
    req.once("error", () => resolve(false));
    req.once("close", () => resolve(req.complete));
    req.resume();
  });
}

/**
 * Node closes a `Connection: close` connection as soon as its answer is written (`destroySoon`). With
 * the client still sending, closing over unread bytes makes the kernel send a reset, which can
 * overtake the answer and discard it at the client. So the connection is closed as careful servers
 * close it (a lingering close): our side ends after the answer, what still comes is thrown away (the
 * request is flowing), and the socket goes once the client has closed its side, or after LINGER_MS.
 */
function closeGently(socket: Socket): void {
  socket.destroySoon = () => {
    const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.once("close", () => clearTimeout(timer));
    socket.end();
  };
}

/** The outermost middleware of an app: once the answer is decided, settles what is left of the request's body. */
export function settleBodies(): Middleware {
  return async (ctx, next) => {
    await next();
    const req = ctx.req;
    if (req.complete || req.destroyed || ctx.headerSent || !ctx.writable) return;
    // A body nobody began to read whose declared length is past the bound cannot end within it.
    const hopeless = !req.readableDidRead && Number(req.headers["content-length"]) > DRAIN_LIMIT_BYTES;
    const drained = drain(req, DRAIN_LIMIT_BYTES);
    if (hopeless || !(await drained)) {
      ctx.set("Connection", "close");
      closeGently(req.socket);
    }
  };
}
