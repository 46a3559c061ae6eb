/**
 * The compiled command line (`agent-sessions`), run as a child process with the run's stores in its
 * environment (for the operator commands) and whatever `extra` adds (a temporary config home, a key).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { projectRoot } from "../../src/paths.js";
import { env } from "./hooks.js";
import { holdsSecret, leaked } from "./secrets.js";
import { until } from "./sessions.js";

const BIN = join(projectRoot, "dist", "src", "cli", "main.js");

/** The environment the service's processes have in this run; `extra` overrides it (a variable set to undefined is removed). */
export function cliEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env, MONGO_URL: env.mongoUrl, REDIS_URL: env.redisUrl, REDIS_KEY_PREFIX: env.redisKeyPrefix, ...extra };
  for (const [name, value] of Object.entries(extra)) if (value === undefined) delete merged[name];
  return merged;
}

function start(args: string[], extra: Record<string, string | undefined>): ChildProcessWithoutNullStreams {
  return spawn("node", [BIN, ...args], { cwd: projectRoot, env: cliEnv(extra) });
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one command to its end; `input` is written to its stdin. */
export function cli(args: string[], extra: Record<string, string | undefined> = {}, input = ""): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = start(args, extra);
    child.stdin.end(input);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => {
      // The suite's secrets never reach an operator's screen either (a new key, printed once, is not one yet).
      if (holdsSecret(stdout + stderr)) leaked(`the output of agent-sessions ${args.slice(0, 2).join(" ")}`);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A command that keeps running (a followed tail): its output so far, a wait for what it prints, and its end. */
export function cliRunning(args: string[], extra: Record<string, string | undefined> = {}) {
  const child = start(args, extra);
  child.stdin.end();
  const out = { stdout: "", stderr: "" };
  child.stdout.on("data", (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out.stderr += d.toString()));
  const closed = new Promise<number | null>((resolve) =>
    child.once("close", (code) => {
      if (holdsSecret(out.stdout + out.stderr)) leaked(`the output of agent-sessions ${args.slice(0, 2).join(" ")}`);
      resolve(code);
    }),
  );
  return {
    out,
    /** Waits until stdout satisfies `done`; fails with what was printed if the command ends first. */
    async printed(done: (stdout: string) => boolean, what: string): Promise<string> {
      return until(
        async () => {
          if (child.exitCode !== null) throw new Error(`the command ended (${child.exitCode}) before printing ${what}: ${JSON.stringify(out)}`);
          return out.stdout;
        },
        done,
        15_000,
        what,
      );
    },
    async stop(): Promise<void> {
      if (child.exitCode === null) child.kill("SIGTERM");
      await closed;
    },
  };
}
