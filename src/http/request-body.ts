/**
 * Reading a request's body, the one way every route does: its `Content-Encoding` decoded (gzip,
 * deflate, br), its size bounded after decoding (a small compressed body never inflates past the
 * limit into memory), and every failure told in the error contract's terms: an encoding the service
 * does not decode is 415, a body that does not decode as its encoding says, or too large, is 400.
 * What a refused body leaves on its connection is `body-leftovers.ts`'s.
 */
import type { IncomingMessage } from "node:http";
import { finished, type Transform } from "node:stream";
import { createBrotliDecompress, createUnzip } from "node:zlib";
import getRawBody from "raw-body";
import { AppError, validationError } from "../errors.js";
import { clientWentAway } from "./errors.js";

/** The content codings the service decodes; `identity` is none. */
const DECODERS = new Map<string, () => Transform>([
  ["gzip", createUnzip],
  ["deflate", createUnzip],
  ["br", createBrotliDecompress],
]);

/** `x-gzip` is gzip's old name, which RFC 9110 asks a recipient to take as gzip. */
const ALIASES = new Map([["x-gzip", "gzip"]]);

/** What a 415 names: the codings a body may be sent in (as an `Accept-Encoding` value). */
export const ACCEPTED_ENCODINGS = [...DECODERS.keys()].join(", ");

/** The request's content coding; undefined when its body is sent as is. Several codings, or one not decoded here, are 415. */
function contentCoding(req: IncomingMessage): string | undefined {
  const named = (req.headers["content-encoding"] ?? "").trim().toLowerCase();
  const coding = ALIASES.get(named) ?? named;
  if (coding === "" || coding === "identity") return undefined;
  if (!DECODERS.has(coding)) {
    throw new AppError("unsupported_encoding", `content-encoding: must be one of: identity, ${ACCEPTED_ENCODINGS}`, {
      acceptEncoding: ACCEPTED_ENCODINGS,
    });
  }
  return coding;
}

/** What went wrong reading a body, in the error contract's terms (never the body itself); the reader's error is the cause. */
function refusal(err: unknown, coding: string | undefined, limit: number): Error {
  const type = (err as { type?: unknown }).type;
  if (type === "entity.too.large") return validationError(`body: must be at most ${limit} bytes${coding ? " once decoded" : ""}`, err);
  if (type === "request.size.invalid") return validationError("body: must be as long as its Content-Length says", err);
  // The client went away (`errors` tells it by the cause, and answers nothing).
  if (clientWentAway(err)) return validationError("body: the request ended before its body", err);
  // raw-body's own errors carry a type; with a decoder, an error without one is the decoder's: the bytes are not what the coding says.
  if (coding && err instanceof Error && type === undefined) return validationError(`body: must be valid ${coding} data, as its Content-Encoding says`, err);
  return new AppError("internal", "unexpected error", {}, err);
}

/**
 * The request's body, decoded, at most `limit` bytes once decoded. On a refusal the decoder is
 * stopped and freed; the rest of the body stays unread on the request, for `settleBodies` to drain
 * or to close the connection over.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const coding = contentCoding(req);
  const decoder = coding === undefined ? undefined : DECODERS.get(coding)!();
  // A request cut off mid-body ends its decoder with the cause, so the read settles (a pipe forwards no errors).
  const stopWatching = decoder ? finished(req, (err) => err && decoder.destroy(err)) : undefined;
  try {
    if (!decoder) return await getRawBody(req, { limit, length: req.headers["content-length"] });
    return await getRawBody(req.pipe(decoder), { limit });
  } catch (err) {
    if (decoder) {
      req.unpipe(decoder);
      // A stopped decoder's late complaint (its listeners are gone) must not become an uncaught error.
      decoder.on("error", () => undefined).destroy();
    }
    throw refusal(err, coding, limit);
  } finally {
    stopWatching?.();
  }
}
