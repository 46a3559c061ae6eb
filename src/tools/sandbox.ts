/**
 * Runs a command for a tool in the session's workspace, under limits: a time limit, a cap on the
 * output kept, and an environment that holds nothing of the service's own (no keys, no URLs).
 */
import { spawn } from "node:child_process";

export const SANDBOX_TIMEOUT_MS = 30_000;
export const SANDBOX_OUTPUT_BYTES = 64 * 1024;

export interface SandboxResult {
  ok: boolean;
  text: string;
}

export function runInSandbox(command: string, args: string[], cwd: string, signal: AbortSignal, timeoutMs = SANDBOX_TIMEOUT_MS): Promise<SandboxResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: cwd, LANG: "C.UTF-8", TMPDIR: cwd },
      stdio: ["ignore", "pipe", "pipe"],
      signal,
      timeout: timeoutMs,
      killSignal: "SIGKILL",
    });
    let output = "";
    let truncated = false;
    const collect = (chunk: Buffer) => {
      if (output.length >= SANDBOX_OUTPUT_BYTES) {
        truncated = true;
        return;
      }
      output += chunk.toString("utf8").slice(0, SANDBOX_OUTPUT_BYTES - output.length);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.on("error", (err) => resolve({ ok: false, text: `could not run the command: ${err.message}` }));
    child.on("close", (code, sig) => {
      const tail = truncated ? `\n[output truncated at ${SANDBOX_OUTPUT_BYTES} bytes]` : "";
      if (sig) resolve({ ok: false, text: `${output}${tail}\n[stopped by ${sig}${sig === "SIGKILL" ? `: over the ${timeoutMs} ms limit` : ""}]` });
      else resolve({ ok: code === 0, text: `${output}${tail}${code === 0 ? "" : `\n[exit code ${code}]`}` });
    });
  });
}
