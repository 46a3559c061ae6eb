/**
 * Secret values the tests hand the service. No response body (checked by the test client) and no
 * line the suite writes to stdout or stderr (checked by the root hooks, which watch both streams from
 * the start) may ever hold one.
 */
import { randomBytes } from "node:crypto";

const secrets = new Set<string>();
const leaks: string[] = [];

/** A fresh secret (or `value`), remembered for the scans. */
export function secret(value?: string): string {
  const s = value ?? `sk-test-${randomBytes(12).toString("hex")}`;
  secrets.add(s);
  return s;
}

/** Whether `text` holds a remembered secret. */
export function holdsSecret(text: string): boolean {
  for (const s of secrets) if (text.includes(s)) return true;
  return false;
}

/** Where a secret was seen; the secret itself is never repeated. */
export function leaked(where: string): void {
  leaks.push(where);
}

export function leaksSeen(): readonly string[] {
  return leaks;
}

/** Scans what `stream` writes from now on for remembered secrets. */
export function watchStream(stream: NodeJS.WriteStream, name: string): void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString("utf8") : "";
    if (holdsSecret(text)) leaked(`a line written to ${name}`);
    return write(chunk, ...rest);
  }) as typeof stream.write;
}
