/** What `fanout.ts` and its subscriber thread (`fanout-client.ts`) share: options, reports, the marker and the clock. */

export interface ClientOptions {
  url: string;
  key: string;
  subscribers: number;
}

/** Messages from the subscriber thread. */
export type ClientReport = { type: "open" } | { type: "sample"; sample: number; receivedMs: Float64Array } | { type: "error"; message: string };

/** A sample's marker as it appears in a steer's JSON: `fanout#<n>#`. */
export const MARKER = "fanout#";

/** Milliseconds on the process's monotonic clock, the same in every thread (unlike `performance.now()`). */
export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;
