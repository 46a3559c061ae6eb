/**
 * The service as it is deployed, `node dist/src/main.js` in a process of its own, on the namespace and
 * database of a service this benchmark set up: API and worker (ROLE=all), so a client in the benchmark's
 * process shares no event loop with it, as a remote client would; or a worker alone (ROLE=worker) beside
 * an API in the benchmark's process, as API pods and workers run apart.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { processTree } from "./peer-server.js";
import { endpoint, redisUrl, type Endpoint, type Service } from "./support.js";

const MAIN = new URL("../src/main.js", import.meta.url).pathname;

export class ServiceProcess {
  private constructor(
    private readonly served: Endpoint | null,
    private readonly child: ChildProcess,
  ) {}

  /** Where it answers (with `setup`'s API key); a worker alone answers nowhere. */
  get endpoint(): Endpoint {
    if (!this.served) throw new Error("a worker process serves no API");
    return this.served;
  }

  /** Starts it on `setup`'s stores, and resolves once it listens (a worker: once it consumes wake-ups). */
  static async start(setup: Service, role: "all" | "worker" = "all"): Promise<ServiceProcess> {
    const child = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        MONGO_URL: setup.mongoUrl,
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: setup.run,
        ROLE: role,
        PORT: "0",
        HOST: "127.0.0.1",
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const ready = role === "worker" ? "worker started" : "listening";
    const port = await new Promise<number | undefined>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`the service exited with ${code}`)));
      createInterface({ input: child.stdout! }).on("line", (line) => {
        const entry = JSON.parse(line) as { msg: string; port?: number };
        if (entry.msg === ready) resolve(entry.port);
      });
    });
    return new ServiceProcess(port ? endpoint(`http://127.0.0.1:${port}`, setup.key) : null, child);
  }

  pids(): number[] {
    return this.child.pid ? processTree(this.child.pid) : [];
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once("exit", r));
    this.child.kill("SIGTERM");
    await exited;
  }
}
