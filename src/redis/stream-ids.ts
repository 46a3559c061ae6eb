/** Redis stream ids (`<ms>-<seq>`) compared as the numbers they are. */

export function compareStreamIds(a: string, b: string): number {
  const [am, as] = a.split("-").map(Number) as [number, number];
  const [bm, bs] = b.split("-").map(Number) as [number, number];
  return am !== bm ? am - bm : (as ?? 0) - (bs ?? 0);
}

export function maxStreamId(a: string, b: string): string {
  return compareStreamIds(a, b) >= 0 ? a : b;
}

export function isStreamId(value: string): boolean {
  return /^\d{1,16}-\d{1,16}$/.test(value);
}
