/** Serves this process's metrics on their own port, whatever its role: a worker has no other listener. */
import type { Server } from "node:http";
import { createMetricsServer } from "../http/metrics.js";
import { readWakeupsFrom } from "../telemetry/metrics.js";
import type { Wakeups } from "../sessions/redis/wakeups.js";

export async function serveMetrics(wakeups: Wakeups, port: number, host: string): Promise<Server> {
  readWakeupsFrom(() => wakeups.backlog(Date.now()));
  const server = createMetricsServer();
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  return server;
}
