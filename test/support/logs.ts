/** The server under test logs JSON lines to stdout; these helpers hold them back from the reporter. */

/** Runs `fn` while collecting what is written to stdout instead of printing it; `fn` may watch the lines as they come. */
export async function capturingLogs<T>(fn: (lines: string[]) => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    lines.push(...String(chunk).split("\n").filter(Boolean));
    return true;
  }) as typeof process.stdout.write;
  try {
    return { result: await fn(lines), lines };
  } finally {
    process.stdout.write = write;
  }
}
