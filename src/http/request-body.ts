/**
 * What is ours in reading a request's body; the libraries read it (koa-body over co-body for JSON,
 * inflation and raw-body for an upload's bytes, inflation decoding gzip, deflate and br). Ours: which
 * `Content-Encoding` a body may come in (any other is 415), the decoder stopped when a read ends
 * early, and every failure told in the error contract's terms (400, never 500). What a refused body
 * leaves on its connection is `body-leftovers.ts`'s.
 */
import type { IncomingMessage } from "node:http";
import { finished, type Writable } from "node:stream";
import inflate from "inflation";
import getRawBody from "raw-body";
import { AppError, validationError } from "../errors.js";
import { clientWentAway } from "./errors.js";

/** The content codings a body may be sent in, each decoded by inflation; none is `identity`. */
const DECODED = ["gzip", "deflate", "br"];

/** What a 415 names: the codings a body may be sent in (as an `Accept-Encoding` value). */
export const ACCEPTED_ENCODINGS = DECODED.join(", ");

/** The decoders `req` is piped into: inflation's, while a read is on one (Node keeps a source's pipes on its readable state only). */
function decodersOf(req: IncomingMessage): Writable[] {
  return [...(req as unknown as { _readableState: { pipes: Writable[] } })._readableState.pipes];
}

/** Unpipes `req` from its decoder, so the rest of its body can be drained, and frees the decoder; `err` goes to a read still on it. */
function stopDecoding(req: IncomingMessage, err?: Error): void {
  for (const decoder of decodersOf(req)) {
    req.unpipe(decoder);
    // Its late complaint, once no read listens, must not become an uncaught error.
    decoder.on("error", () => undefined).destroy(err);
  }
}

/**
 * Readies `req` for a read of its body, and names its coding (undefined for none): refuses (415) one
 * not decoded here, several in one header included; writes the one it is in as inflation and co-body
 * read it (trimmed, lower case, `x-gzip` as gzip; none is left none). Called in the tick the read
 * begins: a pipe passes on no end of its source, so a request cut off mid-body (or before) is made to
 * end the decoder, and the read settles.
 */
export function acceptContentCoding(req: IncomingMessage): string | undefined {
  const sent = req.headers["content-encoding"];
  if (sent === undefined) return undefined;
  const named = sent.trim().toLowerCase();
  // `x-gzip` is gzip's old name, which RFC 9110 asks a recipient to take as gzip.
  const coding = named === "x-gzip" ? "gzip" : named || "identity";
  if (coding !== "identity" && !DECODED.includes(coding)) {
    throw new AppError("unsupported_encoding", `content-encoding: must be one of: identity, ${ACCEPTED_ENCODINGS}`, {
      acceptEncoding: ACCEPTED_ENCODINGS,
    });
  }
  if (sent !== coding) req.headers["content-encoding"] = coding;
  if (coding === "identity") return undefined;
  finished(req, (err) => err && stopDecoding(req, err));
  return coding;
}

/**
 * What went wrong reading `req`'s body (at most `limit` bytes once decoded), in the error contract's
 * terms (never the body itself), the reader's error its cause. Its decoder, if any, is stopped: the
 * rest of the body stays on the request, for `settleBodies` to drain or to close the connection over.
 */
export function bodyRefusal(err: unknown, req: IncomingMessage, limit: number): AppError {
  stopDecoding(req);
  const named = req.headers["content-encoding"];
  const coding = named === "identity" ? undefined : named;
  const type = (err as { type?: unknown }).type;
  if (type === "entity.too.large") return validationError(`body: must be at most ${limit} bytes${coding ? " once decoded" : ""}`, err);
  if (type === "request.size.invalid") return validationError("body: must be as long as its Content-Length says", err);
  // The client went away (`errors` tells it by the cause, and answers nothing).
  if (clientWentAway(err)) return validationError("body: the request ended before its body", err);
  // co-body's, for bytes that are not JSON, an object or array at the top, or a `__proto__` key (Bourne refuses it).
  if (err instanceof SyntaxError) return validationError("body: must be a valid JSON object", err);
  // raw-body's own errors carry a type; with a decoder, an error without one is the decoder's: the bytes are not what the coding says.
  if (coding && err instanceof Error && type === undefined) return validationError(`body: must be valid ${coding} data, as its Content-Encoding says`, err);
  return new AppError("internal", "unexpected error", {}, err);
}

/** `req`'s body as bytes, decoded from its coding, at most `limit` bytes once decoded. */
export async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const coding = acceptContentCoding(req);
  try {
    // A declared length is the wire's, so it bounds a body sent as is only.
    return await getRawBody(inflate(req), { limit, length: coding ? undefined : req.headers["content-length"] });
  } catch (err) {
    throw bodyRefusal(err, req, limit);
  }
}
