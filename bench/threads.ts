/**
 * Benchmark clients on threads of their own, so their work is not done on the service's event loop: the
 * thread runs one function on the options it was started with and reports its result once.
 */
import { parentPort, Worker, workerData } from "node:worker_threads";

type Report<R> = { type: "done"; result: R } | { type: "error"; message: string };

/** In a client's module: runs `work` when the module is a thread started by `inThread`, and nothing otherwise. */
export function serveInThread<O, R>(work: (options: O) => Promise<R>): void {
  if (!parentPort) return;
  const port = parentPort;
  work(workerData as O).then(
    (result) => port.postMessage({ type: "done", result } satisfies Report<R>),
    (err: unknown) => port.postMessage({ type: "error", message: String(err) } satisfies Report<R>),
  );
}

/** Starts the client `module` on a thread with `options`, waits for its result, and ends the thread. */
export async function inThread<O, R>(module: URL, options: O): Promise<R> {
  const worker = new Worker(module, { workerData: options });
  try {
    const report = await new Promise<Report<R>>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    if (report.type === "error") throw new Error(report.message);
    return report.result;
  } finally {
    await worker.terminate();
  }
}
