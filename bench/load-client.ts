/**
 * A load client in a worker thread, so its requests are not made on the service's event loop (as a
 * remote client's are not): `connections` loops POST a body for `seconds`, each to the next of `urls`
 * in turn, and report the requests per second with the count of each status.
 */
import { parentPort, workerData } from "node:worker_threads";
import { Worker } from "node:worker_threads";

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

type Report = { type: "done"; result: LoadResult } | { type: "error"; message: string };

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

/** Runs the load in a thread of its own and waits for its result. */
export async function loadFromThread(options: LoadOptions): Promise<LoadResult> {
  const worker = new Worker(new URL(import.meta.url), { workerData: options });
  try {
    const report = await new Promise<Report>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    if (report.type === "error") throw new Error(report.message);
    return report.result;
  } finally {
    await worker.terminate();
  }
}

if (parentPort) {
  const port = parentPort;
  load(workerData as LoadOptions).then(
    (result) => port.postMessage({ type: "done", result } satisfies Report),
    (err: unknown) => port.postMessage({ type: "error", message: String(err) } satisfies Report),
  );
}
