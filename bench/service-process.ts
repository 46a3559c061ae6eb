/**
 * The service as it is deployed, `node dist/src/main.js` in a process of its own, on the namespace and
 * database of a service this benchmark set up: API and worker (ROLE=all), so a client in the benchmark's
 * process shares no event loop with it, as a remote client would; or one role alone (an API pod, a
 * worker beside an API in the benchmark's process, a scheduler), as they run apart. BENCH_SERVICE names
 * another build's entry point (e.g. one from before a change) to run instead.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { processTree } from "./peer-server.js";
import { endpoint, redisUrl, type Endpoint } from "./support.js";

export const SERVICE_MAIN = process.env.BENCH_SERVICE ?? new URL("../src/main.js", import.meta.url).pathname;

export type Role = "all" | "api" | "worker" | "scheduler";

/** Where a benchmark's service keeps its records: its database and Redis namespace (and its API key, if it has one). */
export interface Place {
  mongoUrl: string;
  run: string;
  key?: string;
}

/** The log line each role writes once it is ready. */
const READY: Record<Role, string> = { all: "listening", api: "listening", worker: "worker started", scheduler: "scheduler started" };

export class ServiceProcess {
  private constructor(
    /** Where it answers; a worker or scheduler alone answers nowhere. */
    private readonly base: string | null,
    private readonly key: string | undefined,
    private readonly child: ChildProcess,
  ) {}

  get url(): string {
    if (!this.base) throw new Error("this process serves no API");
    return this.base;
  }

  /** Where it answers, with the place's API key. */
  get endpoint(): Endpoint {
    if (!this.key) throw new Error("no API key was given for this process");
    return endpoint(this.url, this.key);
  }

  /** Starts it on `place`'s stores (with `env` beside the place's), and resolves once it is ready. */
  static async start(place: Place, role: Role = "all", env: Record<string, string> = {}): Promise<ServiceProcess> {
    const child = spawn(process.execPath, [SERVICE_MAIN], {
      env: {
        ...process.env,
        MONGO_URL: place.mongoUrl,
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: place.run,
        ROLE: role,
        PORT: "0",
        HOST: "127.0.0.1",
        LOG_LEVEL: "info",
        ...env,
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const port = await new Promise<number | undefined>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`the service (${role}) exited with ${code} before it was ready`)));
      createInterface({ input: child.stdout! }).on("line", (line) => {
        const entry = JSON.parse(line) as { msg: string; port?: number };
        if (entry.msg === READY[role]) resolve(entry.port);
      });
    });
    child.removeAllListeners("exit");
    // A benchmark that fails leaves no service behind (an orphaned worker would keep consuming its stream).
    const orphaned = () => child.kill("SIGKILL");
    process.once("exit", orphaned);
    child.once("exit", () => process.off("exit", orphaned));
    return new ServiceProcess(port ? `http://127.0.0.1:${port}` : null, place.key, child);
  }

  pids(): number[] {
    return this.child.pid ? processTree(this.child.pid) : [];
  }

  /** Ends it at once, as a crash would. */
  kill(): void {
    this.child.kill("SIGKILL");
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once("exit", r));
    this.child.kill("SIGTERM");
    await exited;
  }
}
