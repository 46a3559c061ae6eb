/**
 * LangGraph's local Agent Server for `bench:peer`: installed and started by `scripts/peer-server.sh`
 * (pinned versions in a venv of its own, a one-node echo graph), its process tree's CPU time read from
 * /proc, and a client that drives one of its threads a turn at a time with `runs/wait`.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";

const SCRIPT = new URL("../../scripts/peer-server.sh", import.meta.url).pathname;
const READY_MS = 120_000;

export type Poll = "shortened" | "shipped";

/** Installs the pinned server when its venv is missing or differs; the versions installed, on one line. */
export async function installPeer(): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)("bash", [SCRIPT, "install"], { maxBuffer: 1 << 20 });
  if (stderr) process.stderr.write(stderr);
  return stdout.trim();
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

function parentOf(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** `root` and every process descending from it, read afresh from /proc. */
export function processTree(root: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const parent = parentOf(Number(name));
    if (parent !== undefined) parents.set(parent, [...(parents.get(parent) ?? []), Number(name)]);
  }
  const tree: number[] = [];
  for (const queue = [root]; queue.length;) {
    const pid = queue.pop()!;
    tree.push(pid);
    queue.push(...(parents.get(pid) ?? []));
  }
  return tree;
}

export class PeerServer {
  private constructor(
    readonly base: string,
    private readonly child: ChildProcess,
    private readonly dir: string,
    /** What the script said on starting (how it set the poll). */
    readonly notes: string,
  ) {}

  /** Starts `langgraph dev` (the script execs it, so the child is the server) and waits until it answers. */
  static async start(poll: Poll): Promise<PeerServer> {
    const dir = mkdtempSync(join(tmpdir(), "bench-peer-"));
    const port = await freePort();
    const child = spawn("bash", [SCRIPT, "serve", poll, String(port), dir], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    const base = `http://127.0.0.1:${port}`;
    const deadline = performance.now() + READY_MS;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the peer server ended (${child.exitCode}):\n${output}`);
      if (performance.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`the peer server did not answer within ${READY_MS / 1000} s:\n${output}`);
      }
      const ok = await fetch(`${base}/ok`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const notes = output
      .split("\n")
      .filter((l) => l.startsWith("peer: "))
      .map((l) => l.slice("peer: ".length))
      .join("; ");
    return new PeerServer(base, child, dir, notes);
  }

  /** The server's processes: `langgraph dev` and any children. */
  pids(): number[] {
    return this.child.pid ? processTree(this.child.pid) : [];
  }

  async close(): Promise<void> {
    const exited = new Promise((r) => this.child.once("exit", r));
    if (this.child.exitCode === null) {
      this.child.kill("SIGTERM");
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** One thread of the echo graph, driven as the benchmark drives a session: one turn, then the next. */
export class PeerThread {
  private count = 0;

  private constructor(
    private readonly base: string,
    readonly id: string,
  ) {}

  static async open(server: PeerServer): Promise<PeerThread> {
    const res = await fetch(`${server.base}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    if (!res.ok) throw new Error(`POST /threads → ${res.status}`);
    const { thread_id } = (await res.json()) as { thread_id: string };
    return new PeerThread(server.base, thread_id);
  }

  /** POST …/runs/wait with one user message; ms until its answer (the thread's state) is read. */
  async turn(): Promise<number> {
    const text = `turn ${++this.count}`;
    const t0 = performance.now();
    const res = await fetch(`${this.base}/threads/${this.id}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "echo", input: { messages: [{ role: "user", content: text }] } }),
    });
    const answer = (await res.json()) as { messages?: { type: string; content: string }[] };
    const ms = performance.now() - t0;
    // A run that failed also answers 200, with the error instead of the state.
    const last = answer.messages?.at(-1);
    if (res.status !== 200 || last?.type !== "ai" || last.content !== text)
      throw new Error(`runs/wait → ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
    return ms;
  }
}
