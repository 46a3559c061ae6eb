/**
 * Each session's network on this worker: a network namespace of its own that has nothing but its
 * loopback, held by its one process, the bridge (socat) from 127.0.0.1:EGRESS_PORT to the worker's egress
 * proxy's Unix socket (`egress-proxy.ts`), the one thing the namespace and the host share. Every command
 * of the session joins it (`isolation.ts`), so a server one of them runs in the background answers the
 * others on loopback, and no other session's; a command pays for no bridge of its own.
 *
 * The bridge runs as a uid of its own (the session's + BRIDGE_UID_OFFSET) without capabilities: the
 * session's processes cannot signal it, and killing every process of the session's user spares it. It
 * starts with the session's first command here and ends when the session ends, when it has had no
 * command running for IDLE_MS, or with the worker (bwrap's --die-with-parent).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "../../log.js";
import { EGRESS_PORT } from "./egress-proxy.js";
import { SANDBOX_PATH } from "./isolation-probe.js";

/** Added to the session's uid for its bridge's: above every session uid, under 2^31. */
const BRIDGE_UID_OFFSET = 1_000_000_000;
/** A network without a command running for this long is ended; the next command starts another. */
const IDLE_MS = 5 * 60_000;
const SWEEP_MS = 30_000;
/** How long a new bridge may take to listen. */
const READY_MS = 10_000;
/** Connections one bridge carries at once (a child process each). */
const BRIDGE_CONNECTIONS = 128;
/** The bridge's listening socket as /proc/<pid>/net/tcp shows it: 127.0.0.1:EGRESS_PORT, LISTEN. */
const LISTENING = new RegExp(`^\\s*\\d+: 0100007F:${EGRESS_PORT.toString(16).toUpperCase().padStart(4, "0")} 00000000:0000 0A `, "m");

/** A command's hold on its session's network: the namespace to join, and the release when it ends. */
export interface NetworkLease {
  path: string;
  release(): void;
}

interface Network {
  bridge: ChildProcess;
  /** /proc/<pid>/ns/net of the bridge, once it listens. */
  ready: Promise<string>;
  running: number;
  lastUsed: number;
}

export class SessionNetworks {
  private readonly networks = new Map<string, Network>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly egress: string,
    private readonly logger: Logger,
  ) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS).unref();
  }

  /** The session's network for a command (started when it has none here, or its bridge died); release it when the command ends. */
  async lease(sessionId: string, user: { uid: number; gid: number }): Promise<NetworkLease> {
    let network = this.networks.get(sessionId);
    if (!network || !alive(network.bridge)) {
      network = this.start(user);
      this.networks.set(sessionId, network);
    }
    network.running++;
    network.lastUsed = Date.now();
    const held = network;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      held.running--;
      held.lastUsed = Date.now();
    };
    try {
      return { path: await held.ready, release };
    } catch (err) {
      release();
      if (this.networks.get(sessionId) === held) this.end(sessionId);
      throw err;
    }
  }

  /** Ends the session's network here (the session was archived or deleted). */
  end(sessionId: string): void {
    const network = this.networks.get(sessionId);
    if (!network) return;
    this.networks.delete(sessionId);
    stop(network.bridge);
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.networks.keys()]) this.end(id);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, network] of this.networks) {
      if (network.running === 0 && now - network.lastUsed > IDLE_MS) this.end(id);
    }
  }

  private start(user: { uid: number; gid: number }): Network {
    const uid = user.uid + BRIDGE_UID_OFFSET;
    const gid = user.gid + BRIDGE_UID_OFFSET;
    const args = [
      "--unshare-net",
      "--die-with-parent",
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--info-fd",
      "3",
      "--",
      "setpriv",
      `--reuid=${uid}`,
      `--regid=${gid}`,
      "--clear-groups",
      "--no-new-privs",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--",
      "socat",
      `TCP-LISTEN:${EGRESS_PORT},bind=127.0.0.1,reuseaddr,fork,max-children=${BRIDGE_CONNECTIONS}`,
      `UNIX-CONNECT:${this.egress}`,
    ];
    const bridge = spawn("bwrap", args, { stdio: ["ignore", "ignore", "pipe", "pipe"], detached: true, env: { PATH: SANDBOX_PATH } });
    const network: Network = { bridge, ready: this.listening(bridge), running: 0, lastUsed: Date.now() };
    // Nobody may be waiting when it fails later (an idle network): said, not thrown.
    network.ready.catch((err: unknown) => this.logger.warn("a session's network could not be made", { err }));
    return network;
  }

  /** Resolves with the bridge's namespace once it listens; rejects when it ends first or takes too long. */
  private async listening(bridge: ChildProcess): Promise<string> {
    let said = "";
    bridge.stderr!.on("data", (chunk: Buffer) => (said = (said + chunk.toString()).slice(-2_000)));
    const exited = new Promise<never>((_, reject) =>
      bridge.once("exit", (code, signal) => reject(new Error(`the bridge ended (${signal ?? code}): ${said.trim() || "no message"}`))),
    );
    exited.catch(() => undefined);
    bridge.once("error", () => undefined);
    const pid = await Promise.race([childPid(bridge.stdio[3] as Readable), exited]);
    for (const deadline = Date.now() + READY_MS; Date.now() < deadline;) {
      const table = await readFile(`/proc/${pid}/net/tcp`, "utf8").catch(() => "");
      if (LISTENING.test(table)) return `/proc/${pid}/ns/net`;
      await Promise.race([delay(2), exited]);
    }
    stop(bridge);
    throw new Error(`the bridge did not listen within ${READY_MS} ms`);
  }
}

/** The sandboxed process's pid, as bwrap tells it on its info fd (`{"child-pid": N}`). */
function childPid(info: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = "";
    info.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const pid = /"child-pid":\s*(\d+)/.exec(text)?.[1];
      if (pid !== undefined) resolve(Number(pid));
    });
    info.once("end", () => reject(new Error("bwrap told no child pid")));
  });
}

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Kills the bridge's process group (bwrap and socat); nothing when it is already gone. */
function stop(bridge: ChildProcess): void {
  if (bridge.pid === undefined || !alive(bridge)) return;
  try {
    process.kill(-bridge.pid, "SIGKILL");
  } catch {
    /* already gone */
  }
}
