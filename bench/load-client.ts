/**
 * A load client in a worker thread, so its requests are not made on the service's event loop (as a
 * remote client's are not): `connections` loops POST a body for `seconds`, each to the next of `urls`
 * in turn, and report the requests per second with the count of each status.
 */
import { inThread, serveInThread } from "./threads.js";

export interface LoadOptions {
  urls: string[];
  headers: Record<string, string>;
  body: string;
  connections: number;
  seconds: number;
}

export interface LoadResult {
  rate: number;
  statuses: Record<number, number>;
}

async function load({ urls, headers, body, connections, seconds }: LoadOptions): Promise<LoadResult> {
  const statuses: Record<number, number> = {};
  let done = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async (_, client) => {
      for (let n = 0; performance.now() < deadline; n++) {
        const res = await fetch(urls[(client + connections * n) % urls.length]!, { method: "POST", headers, body });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        done++;
      }
    }),
  );
  return { rate: done / ((performance.now() - started) / 1000), statuses };
}

/** Runs the load on a thread of its own and waits for its result. */
export const loadFromThread = (options: LoadOptions): Promise<LoadResult> => inThread(new URL(import.meta.url), options);

serveInThread(load);
