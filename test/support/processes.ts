/** Real service processes (`node dist/src/main.js`) for multi-process tests. */
import { spawn, type ChildProcess } from "node:child_process";
import { env } from "./hooks.js";
import { freePort } from "./ports.js";

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Resolves when a log line contains `text`. */
  waitForLog(text: string, timeoutMs?: number): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Another user to run a service process as, and a Node binary that user may run. */
export interface RunAs {
  uid: number;
  gid: number;
  node: string;
}

/**
 * `port`: listen there (a process started again where its clients know to find it); default a free one.
 * A variable of `extraEnv` set to undefined is removed. `runAs`: the process's user, when not this one's.
 */
export async function startProcess(
  role: "api" | "worker" | "scheduler" | "all",
  extraEnv: Record<string, string | undefined> = {},
  port?: number,
  runAs?: RunAs,
): Promise<ServiceProcess> {
  port ??= await freePort();
  const merged = {
    ...process.env,
    MONGO_URL: env.mongoUrl,
    REDIS_URL: env.redisUrl,
    REDIS_KEY_PREFIX: env.redisKeyPrefix,
    PORT: String(port),
    HOST: "127.0.0.1",
    ROLE: role,
    LOG_LEVEL: "info",
    ...extraEnv,
  };
  const child = spawn(runAs?.node ?? process.execPath, ["dist/src/main.js"], {
    env: Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)),
    stdio: ["ignore", "pipe", "pipe"],
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
  });
  let out = "";
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    listeners.forEach((l) => l());
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const proc: ServiceProcess = {
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    waitForLog(text, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (out.includes(text)) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`process did not log "${text}"; output:\n${out}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
  const ready = { worker: '"msg":"worker started"', scheduler: '"msg":"scheduler started"', api: '"msg":"listening"', all: '"msg":"listening"' };
  await proc.waitForLog(ready[role]);
  return proc;
}
