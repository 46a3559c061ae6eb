/**
 * The chaos run's cluster: a Redis of its own (AOF on, so a killed Redis comes back with what it
 * acknowledged; a password of its own, like every local store), the MongoDB-wire server of `chaos-database.ts`, and service processes
 * (`node dist/src/main.js`) kept running by a supervisor that starts each again on its port when it dies.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freePort } from "../test/support/ports.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SIGKILLs `child` and resolves once it has exited (at once if it already has). */
export function killed(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

/** A server the run takes away: `outage` kills it, waits, starts it again on its files; `stop` kills it and removes them. */
export function downAndBack(kill: () => Promise<void>, start: () => Promise<void>, dir: string) {
  return {
    async outage(downMs: number): Promise<void> {
      await kill();
      await sleep(downMs);
      await start();
    },
    async stop(): Promise<void> {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Redis with `appendfsync` as given: `always` acknowledges a write only once it is on disk, so a SIGKILL
 * loses nothing acknowledged; `everysec` may lose the last second. `crash` kills it (SIGKILL) and starts
 * it again on the same files after `downMs`.
 */
export async function startRedis(appendfsync: "always" | "everysec"): Promise<{ url: string; crash(downMs: number): Promise<void>; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "chaos-redis-"));
  const port = await freePort();
  const password = randomBytes(24).toString("hex");
  let child: ChildProcess;
  const start = async () => {
    // The password from stdin (`-`: a config file read there), not the command line, which `ps` shows.
    child = spawn(
      "redis-server",
      ["-", "--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "yes", "--appendfsync", appendfsync, "--save", ""],
      { stdio: ["pipe", "ignore", "ignore"] },
    );
    child.stdin!.end(`requirepass ${password}\n`);
    const probe = new Redis({ port, password, lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
    probe.on("error", () => undefined);
    await probe.connect().catch(() => undefined);
    for (;;) {
      // Loading the AOF answers LOADING until done.
      if ((await probe.ping().catch(() => "")) === "PONG") break;
      await sleep(50);
    }
    probe.disconnect();
  };
  await start();
  const { outage, stop } = downAndBack(() => killed(child), start, dir);
  return { url: `redis://:${password}@127.0.0.1:${port}`, crash: outage, stop };
}

export type Role = "api" | "worker";

/** A service process the supervisor keeps running: started again on its port whenever it exits. */
export class Supervised {
  private child: ChildProcess | null = null;
  private stopping = false;
  /** Times it was started again after dying. */
  restarts = 0;
  /** Lines it printed at error level, for the run's report. */
  readonly errors: string[] = [];

  constructor(
    readonly name: string,
    readonly role: Role,
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  /** The running process's id, if it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  start(): void {
    const child = spawn(process.execPath, ["dist/src/main.js"], {
      env: { ...process.env, ...this.env, ROLE: this.role, PORT: String(this.port), HOST: "127.0.0.1", LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    let partial = "";
    const collect = (d: Buffer) => {
      const lines = (partial + d.toString()).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) if (line.startsWith('{"level":"error"')) this.errors.push(line);
    };
    child.stdout!.on("data", collect);
    child.stderr!.on("data", collect);
    child.once("exit", () => {
      if (this.stopping) return;
      this.restarts++;
      // A process that cannot reach a store at start exits; it is tried again until it can.
      setTimeout(() => !this.stopping && this.start(), 300);
    });
  }

  /** SIGKILL: what a pod's sudden death looks like; the supervisor starts it again. */
  kill(): void {
    this.child?.kill("SIGKILL");
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
    });
  }
}

/** Waits until every API process answers `/readyz` with 200. */
export async function ready(apis: Supervised[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const api of apis) {
    for (;;) {
      const ok = await fetch(`${api.url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`${api.name} is not ready`);
      await sleep(100);
    }
  }
}
