/**
 * The sandbox's one way out. A tool process runs in its session's network namespace, which has nothing
 * but its loopback (`session-networks.ts`); there a bridge forwards 127.0.0.1:EGRESS_PORT to this proxy's
 * Unix socket, the one thing the namespace and the host share. The proxy (proxy-chain: plain HTTP forwarding
 * and CONNECT tunnels) lets a connection through only to a destination the outbound policy's sandbox form
 * permits (public addresses and the operator's allowed networks, never this machine): the name is
 * resolved and checked here once, and the connection goes to the addresses that were checked.
 *
 * proxy-chain drops a connection that has no remote address, which a Unix socket's has not, so it listens
 * on an ephemeral loopback port and a relay of a few lines carries the socket's connections to it. Only
 * processes on the host's own network reach that port; a sandbox's loopback is its own.
 */
import type { lookup } from "node:dns";
import { chmod, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { connect, createServer, type AddressInfo, type Server as NetServer, type Socket } from "node:net";
import { join } from "node:path";
import { RequestError, Server } from "proxy-chain";
import type { Logger } from "../../log.js";
import { isOutboundRefused, pinnedLookup, type OutboundPolicy } from "../../outbound/outbound.js";

/** The port a session network's bridge listens on (HTTP_PROXY=http://127.0.0.1:3128). */
export const EGRESS_PORT = 3128;

/** Where the proxies' sockets are: outside every directory a sandbox has covered or replaced (/tmp, the workspace root). */
const RUN_DIR = "/run/agent-sessions";

/**
 * A proxy's directory names the process that made it (`egress-<pid>-…`), so a later start removes those of
 * processes that ended without closing theirs (killed): each holds a socket nothing listens on.
 */
const PROXY_DIR = /^egress-(\d+)-/;

/** Whether a process of that id runs (one of another user's too). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The directories of the proxies this process runs (a process may run several: tests, a service per interface). */
const ours = new Set<string>();

/**
 * Removes the directories of proxies whose process has ended. One bearing this process's id that it did
 * not make is an earlier process's of the same id (a container's restart reuses its ids).
 */
export async function removeOrphanedProxies(dir = RUN_DIR): Promise<string[]> {
  const orphans = (await readdir(dir).catch(() => [])).filter((name) => {
    const pid = Number(PROXY_DIR.exec(name)?.[1] ?? NaN);
    return Number.isInteger(pid) && (pid === process.pid ? !ours.has(join(dir, name)) : !running(pid));
  });
  await Promise.all(orphans.map((name) => rm(join(dir, name), { recursive: true, force: true })));
  return orphans;
}

/** The variables that send a sandbox's HTTP clients (curl, pip, npm, git, Node's fetch) through its bridge. */
export function proxyVariables(): Record<string, string> {
  const url = `http://127.0.0.1:${EGRESS_PORT}`;
  const local = "localhost,127.0.0.1,::1";
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, NO_PROXY: local, no_proxy: local, NODE_USE_ENV_PROXY: "1" };
}

export class EgressProxy {
  private constructor(
    private readonly proxy: Server,
    private readonly relay: NetServer,
    /** The Unix socket sandboxes connect to (world-connectable: it grants only what the policy permits). */
    readonly socket: string,
    private readonly dir: string,
  ) {}

  static async start(policy: OutboundPolicy, logger: Logger): Promise<EgressProxy> {
    const sandbox = policy.forSandbox();
    const proxy = new Server({
      port: 0,
      host: "127.0.0.1",
      verbose: false,
      prepareRequestFunction: ({ hostname, port }) => admit(sandbox, hostname, port, logger),
    });
    await proxy.listen();
    const target = (proxy.server.address() as AddressInfo).port;
    await mkdir(RUN_DIR, { recursive: true, mode: 0o711 });
    await chmod(RUN_DIR, 0o711);
    const orphans = await removeOrphanedProxies();
    if (orphans.length > 0) logger.info("removed the sockets of egress proxies whose process had ended", { count: orphans.length });
    const dir = await mkdtemp(join(RUN_DIR, `egress-${process.pid}-`));
    ours.add(dir);
    await chmod(dir, 0o711);
    const socket = join(dir, "proxy.sock");
    const relay = createServer((client) => carry(client, connect(target, "127.0.0.1")));
    await new Promise<void>((resolve, reject) => {
      relay.once("error", reject);
      relay.listen(socket, () => resolve());
    });
    await chmod(socket, 0o666);
    return new EgressProxy(proxy, relay, socket, dir);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.relay.close(() => resolve()));
    await this.proxy.close(true);
    await rm(this.dir, { recursive: true, force: true });
    ours.delete(this.dir);
  }
}

/** Joins two sockets both ways; either one ending or failing ends the other. */
function carry(a: Socket, b: Socket): void {
  a.pipe(b).pipe(a);
  a.on("error", () => b.destroy());
  b.on("error", () => a.destroy());
}

/**
 * proxy-chain's admission of each request: a refused destination is a 403 naming the host and the reason
 * (never the address it resolved to: the sandbox must not map the private network by probing it); an
 * unresolvable one a 502.
 */
async function admit(policy: OutboundPolicy, hostname: string, port: number, logger: Logger) {
  try {
    // proxy-chain types it as dns.lookup, and only hands it to net.connect and http.request as their `lookup`.
    return { dnsLookup: pinnedLookup(await policy.resolveChecked(hostname)) as typeof lookup };
  } catch (err) {
    if (!isOutboundRefused(err)) throw new RequestError(`${hostname} could not be resolved`, 502);
    logger.info("a sandbox's connection was refused", { host: err.host, port, reason: err.reason, ...(err.address ? { address: err.address } : {}) });
    throw new RequestError(err.message, 403);
  }
}
