/** Request bodies as they travel: compressed in each content coding, broken, inflating past any limit, chunked. */
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";

/** The content codings the service decodes, each with its encoder (`x-gzip` is gzip's old name). */
export const CODINGS: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: (b) => gzipSync(b),
  "x-gzip": (b) => gzipSync(b),
  deflate: (b) => deflateSync(b),
  br: (b) => brotliCompressSync(b),
};

/** Codings the service does not decode: old, newer, several at once, and none at all. */
export const UNSUPPORTED_CODINGS = ["compress", "zstd", "gzip, br", "snappy"];

/** Bytes that are not valid data in any of `CODINGS`. */
export const UNDECODABLE = Buffer.from("this text was never compressed by anything");

/** The message of an encoding the service does not decode (415). */
export const UNSUPPORTED_MESSAGE = "content-encoding: must be one of: identity, gzip, deflate, br";

const MiB = 1024 * 1024;

/**
 * A compression bomb: about 1 MB of gzip on the wire that inflates to 1 GiB of zeros. Gzip members
 * may follow one another in one body, so one member of 64 MiB is sent sixteen times (cheap to make).
 */
export function gzipBomb(): Buffer {
  const member = gzipSync(Buffer.alloc(64 * MiB));
  return Buffer.concat(Array.from({ length: 16 }, () => member));
}

/** `bytes` framed as one chunk of `Transfer-Encoding: chunked`, then the last chunk. */
export function chunked(bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n0\r\n\r\n")]);
}

/** `n` MiB of JSON-looking filler (spaces). */
export const filler = (n: number) => Buffer.alloc(n * MiB, 0x20);
