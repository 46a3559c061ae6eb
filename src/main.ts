/** Entry point: validated config, the roles of this process, graceful shutdown on SIGTERM/SIGINT. */
import type { Server } from "node:http";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { createApp } from "./http/app.js";
import { createHttpServer } from "./http/server.js";
import { createLogger } from "./log.js";
import { createRuntime } from "./runtime.js";

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const log = createLogger(config.logLevel, { role: config.role, pid: process.pid });
  const runtime = await createRuntime(config, log);

  let server: Server | undefined;
  if (config.role !== "api") {
    await runtime.startWorker(config.role !== "scheduler");
    log.info("worker started", { consumesWakeups: config.role !== "scheduler" });
  }
  if (config.role === "scheduler" || config.role === "all") {
    await runtime.startScheduler();
    log.info("scheduler started");
  }
  if (config.role === "api" || config.role === "all") {
    server = createHttpServer(createApp(runtime.components)).listen(config.port, config.host);
    await new Promise<void>((resolve, reject) => server!.once("listening", resolve).once("error", reject));
    const address = server.address();
    log.info("listening", { port: typeof address === "object" && address ? address.port : config.port });
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    const deadline = setTimeout(() => {
      log.warn("shutdown timed out; exiting");
      process.exit(1);
    }, config.shutdownTimeoutMs);
    deadline.unref();
    if (server) {
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      server.closeIdleConnections();
      // SSE responses never end by themselves; end them so clients reconnect to another pod.
      server.closeAllConnections();
      await closed;
    }
    await runtime.close();
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`failed to start: ${message}\n`);
  process.exit(1);
});
