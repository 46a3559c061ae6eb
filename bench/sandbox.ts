/**
 * What the tools' sandbox costs a command (`true`, run as the terminal runs it: `runInSandbox`), in
 * alternating samples of one run:
 *   bare            the command under its limits, as the session's user, no namespaces (the baseline);
 *   no network      the namespaces deployments had before every tool process was isolated: mount, PID,
 *                   IPC and UTS by `unshare` and a shell of mounts, the same change of user, the host's
 *                   network (rebuilt here as it was, for comparison only);
 *   sandbox         today's, for a command of a session whose network is already made: bwrap's
 *                   namespaces, joined to the session's network (nsenter);
 *   first command   the same for a session's first command on a worker: its network and bridge made too.
 * Each figure is printed beside the bare spawn's from the same run, as the overhead (difference) and
 * the ratio. Needs root (to switch users and make namespaces). Options: BENCH_SAMPLES (default 200).
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../src/log.js";
import { isolationProblem } from "../src/agent-tools/sandbox/isolation-probe.js";
import { ISOLATED_WORKSPACE, type Isolation } from "../src/agent-tools/sandbox/isolation.js";
import { OutboundPolicy } from "../src/outbound/outbound-policy.js";
import { prepareSessionWorkspace, runInSandbox, sandboxUser, sessionTmpOf, type SandboxPlace } from "../src/agent-tools/sandbox/sandbox.js";
import { startToolIsolation } from "../src/agent-tools/sandbox/tool-isolation.js";
import { fixed as f, summary } from "./support.js";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WARMUP = 10;
const LIMITS = { memoryBytes: 1024 * 2 ** 20, fileBytes: 1024 * 2 ** 20 };

/** The namespaces as they were without a network of their own: the baseline's command line. */
function withoutNetwork(place: { workspace: string; isolation: Isolation; uid: number }): Promise<void> {
  const { workspace, isolation, uid } = place;
  const setup = [
    "set -e",
    "mount -t tmpfs -o mode=0755,size=64m,nosuid,nodev tmpfs /dev/shm",
    "mkdir /dev/shm/.w /dev/shm/.t",
    `mount --bind "${workspace}" /dev/shm/.w`,
    `mount --bind "${isolation.tmp}" /dev/shm/.t`,
    `mount -t tmpfs -o mode=0755,size=64k,nosuid,nodev,noexec tmpfs "${isolation.hide}"`,
    `mount --move /dev/shm/.w ${ISOLATED_WORKSPACE}`,
    "mount --move /dev/shm/.t /tmp",
    "rmdir /dev/shm/.w /dev/shm/.t",
    "chmod 1777 /dev/shm",
    "if [ -d /var/tmp ]; then mount -t tmpfs -o mode=1777,size=64m,nosuid,nodev tmpfs /var/tmp; fi",
    "hostname sandbox",
    `cd ${ISOLATED_WORKSPACE}`,
    `exec setpriv --reuid=${uid} --regid=${uid} --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- prlimit --data=${LIMITS.memoryBytes} --fsize=${LIMITS.fileBytes} --core=0 --nproc=128 -- true`,
  ].join("\n");
  const flags = ["--mount", "--pid", "--ipc", "--uts", "--fork", "--kill-child", "--mount-proc", "--propagation", "private"];
  return new Promise((resolve, reject) => {
    const child = spawn("unshare", [...flags, "--", "/bin/sh", "-c", setup], { stdio: "ignore", env: { PATH: "/usr/local/bin:/usr/bin:/bin" } });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the baseline's namespaces ended with ${code}`))));
  });
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function main(): Promise<void> {
  const problem = isolationProblem();
  if (problem) throw new Error(`the sandbox cannot be measured here: ${problem}`);
  const logger = createLogger("warn");
  const tools = await startToolIsolation(new OutboundPolicy(), false, logger);
  const root = await mkdtemp(join(tmpdir(), "agent-sessions-bench-sandbox-"));
  const workspace = join(root, "ses_bench");
  const user = sandboxUser("ses_bench")!;
  await prepareSessionWorkspace(workspace, user);
  const isolation: Isolation = { tmp: sessionTmpOf(workspace), hide: root };
  const bare: SandboxPlace = { cwd: workspace, user, limits: LIMITS };
  const signal = new AbortController().signal;
  const command = async (place: SandboxPlace) => {
    const result = await runInSandbox("true", [], place, signal);
    if (!result.ok) throw new Error(`the command failed: ${result.text}`);
  };
  const networks = tools.networks!;
  /** A command of session `id`, on its network (made first when it has none). */
  const sandboxed = async (id: string) => {
    const lease = await networks.lease(id, user);
    try {
      await command({ ...bare, isolation, network: lease.path });
    } finally {
      lease.release();
    }
  };
  const samples = { bare: [] as number[], old: [] as number[], sandbox: [] as number[], first: [] as number[] };
  try {
    for (let n = 0; n < WARMUP + SAMPLES; n++) {
      // Each sample runs all four, in an order that turns, so none always follows the same one.
      const runs: [keyof typeof samples, () => Promise<void>][] = [
        ["bare", () => command(bare)],
        ["old", () => withoutNetwork({ workspace, isolation, uid: user.uid })],
        ["sandbox", () => sandboxed("ses_bench")],
        ["first", () => sandboxed(`ses_first${n}`).finally(() => networks.end(`ses_first${n}`))],
      ];
      for (let i = 0; i < runs.length; i++) {
        const [name, run] = runs[(n + i) % runs.length]!;
        const ms = await timed(run);
        if (n >= WARMUP) samples[name].push(ms);
      }
    }
  } finally {
    await tools.close();
    await rm(root, { recursive: true, force: true });
  }
  const b = summary(samples.bare);
  console.log(`A command (\`true\`, as the terminal runs it), ${SAMPLES} samples of each, alternating; ms`);
  console.log(`    ${"".padEnd(34)}${"p50".padStart(8)}${"p99".padStart(8)}   over bare p50 / p99     ÷ bare p50 / p99`);
  const row = (name: string, ms: number[]) => {
    const s = summary(ms);
    const over = name === "bare (baseline)" ? "" : `${f(s.p50 - b.p50)} / ${f(s.p99 - b.p99)}       ${f(s.p50 / b.p50, 5)}x / ${f(s.p99 / b.p99, 5)}x`;
    console.log(`    ${name.padEnd(34)}${f(s.p50)}${f(s.p99)}   ${over}`);
  };
  row("bare (baseline)", samples.bare);
  row("namespaces without a network", samples.old);
  row("sandbox (the session's network)", samples.sandbox);
  row("a session's first command", samples.first);
}

await main();
