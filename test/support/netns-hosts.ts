/**
 * Test hosts in network namespaces of their own (iproute2's `ip netns`, veth pairs): each is a machine on
 * an address the test chooses, one hop from this one, where a small HTTP server answers its name. They
 * stand for a host on a private network and a host on the public internet, which the sandbox's egress
 * policy must tell apart; nothing outside this machine is reached.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { connect } from "node:net";

export interface TestHost {
  /** The host's address, which its server listens on (port 80). */
  address: string;
  close(): void;
}

function ip(...args: string[]): void {
  const run = spawnSync("ip", args, { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`ip ${args.join(" ")}: ${run.stderr.trim()}`);
}

const SERVER = `require("node:http").createServer((q, r) => r.end("hello from " + process.argv[1])).listen(80, process.argv[2])`;

function answers(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port: 80, timeout: 500 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket
      .once("connect", () => done(true))
      .once("error", () => done(false))
      .once("timeout", () => done(false));
  });
}

/**
 * Starts host `name` at `address` (a /30's second address; this machine takes the first, on its side of
 * the link). Needs root. Its server answers `hello from <name>` to any request.
 */
export async function startTestHost(name: string, gateway: string, address: string): Promise<TestHost> {
  const ns = `as-${name}-${process.pid}`;
  const [outside, inside] = [`veth-${process.pid % 100_000}-${name.slice(0, 2)}`, "eth0"];
  ip("netns", "add", ns);
  ip("link", "add", outside, "type", "veth", "peer", "name", inside, "netns", ns);
  ip("addr", "add", `${gateway}/30`, "dev", outside);
  ip("link", "set", outside, "up");
  ip("-n", ns, "addr", "add", `${address}/30`, "dev", inside);
  ip("-n", ns, "link", "set", inside, "up");
  ip("-n", ns, "link", "set", "lo", "up");
  ip("-n", ns, "route", "add", "default", "via", gateway);
  const server: ChildProcess = spawn("ip", ["netns", "exec", ns, process.execPath, "-e", SERVER, name, address], { stdio: "ignore" });
  for (let i = 0; i < 100 && !(await answers(address)); i++) await new Promise((r) => setTimeout(r, 50));
  return {
    address,
    close() {
      server.kill("SIGKILL");
      spawnSync("ip", ["link", "del", outside]);
      spawnSync("ip", ["netns", "del", ns]);
    },
  };
}
