/** Entry point: validated config, the roles of this process, graceful shutdown on SIGTERM/SIGINT. */
import type { Server } from "node:http";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { withLocalState, type LocalNote } from "./local-state.js";
import { createApp } from "./http/app.js";
import { consoleUrl } from "./http/console.js";
import { createDeploymentsApp } from "./deployments/http/app.js";
import { createHttpServer } from "./http/server.js";
import { createLogger } from "./log.js";
import { serveMetrics } from "./roles/metrics.js";
import { createRuntime } from "./roles/runtime.js";
import { startTracing } from "./telemetry/tracing-setup.js";

type Tracing = ReturnType<typeof startTracing>;

/** The config, with what the state directory supplies to a local start (the stores' passwords, a vault key), and tracing started when an exporter is configured. */
function readConfig(): { config: Config; notes: LocalNote[]; tracing: Tracing } {
  try {
    const local = withLocalState(process.env, { vaultKey: true });
    const config = loadConfig(local.env);
    return { config, notes: local.notes, tracing: startTracing(process.env, config.role) };
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

async function main(): Promise<void> {
  const { config, notes, tracing } = readConfig();
  const log = createLogger(config.logLevel, { role: config.role, pid: process.pid });
  if (tracing) log.info("tracing: spans are exported over OTLP (HTTP/protobuf)");
  for (const note of notes) log.info(note.message, { file: note.file });
  if (!config.vaultKeys)
    log.warn("VAULT_ENCRYPTION_KEY is not set: vault credentials, deployment secrets and webhook endpoints cannot be created or used (503)");
  const runtime = await createRuntime(config, log);

  let server: Server | undefined;
  let deploymentsServer: Server | undefined;
  let metricsServer: Server | undefined;
  if (config.metricsPort !== undefined) {
    metricsServer = await serveMetrics(runtime.core.redis.wakeups, config.metricsPort, config.host);
    log.info("metrics listening", { port: portOf(metricsServer, config.metricsPort) });
  }
  if (config.role !== "api") {
    await runtime.startWorker(config.role !== "scheduler");
    log.info("worker started", { consumesWakeups: config.role !== "scheduler" });
  }
  if (config.role === "scheduler" || config.role === "all") {
    await runtime.startScheduler();
    log.info("scheduler started");
  }
  if (config.role === "api" || config.role === "all") {
    server = await listen(createHttpServer(createApp(runtime.core.services)), config.port, config.host);
    const port = portOf(server, config.port);
    log.info("listening", { port, console: consoleUrl(config.host, port) });
    if (config.deploymentsPort !== undefined) {
      deploymentsServer = await listen(createHttpServer(createDeploymentsApp(runtime.deployments.services)), config.deploymentsPort, config.host);
      log.info("deployments interface listening", { port: portOf(deploymentsServer, config.deploymentsPort) });
    }
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
    // SSE responses never end by themselves; end them so clients reconnect to another pod.
    await Promise.all([server, deploymentsServer, metricsServer].map((s) => s && closeServer(s)));
    await runtime.close();
    // The spans still batched leave before the process does.
    await tracing?.shutdown().catch((err: unknown) => log.warn("tracing: the last spans could not be exported", { err }));
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

async function listen(server: Server, port: number, host: string): Promise<Server> {
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  return server;
}

function portOf(server: Server, fallback: number): number {
  const address = server.address();
  return typeof address === "object" && address ? address.port : fallback;
}

async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  server.closeAllConnections();
  await closed;
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`failed to start: ${message}\n`);
  process.exit(1);
});
