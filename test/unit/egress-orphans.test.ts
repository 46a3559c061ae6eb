/** The egress proxies' directories: a start removes those whose process ended without closing its proxy, and no other. */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { EgressProxy, removeOrphanedProxies } from "../../src/agent-tools/sandbox/egress-proxy.js";
import { createLogger } from "../../src/log.js";
import { OutboundPolicy } from "../../src/outbound/outbound.js";

/** The id of a process that has ended (and, as ids go up, not yet been reused). */
async function endedPid(): Promise<number> {
  const child = spawn("true");
  await new Promise((r) => child.once("exit", r));
  return child.pid!;
}

describe("egress proxies: the directories of ended processes", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "egress-orphans-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("removes a directory whose process ended and one bearing this process's id; keeps a running process's and anything else", async () => {
    const sleeper = spawn("sleep", ["30"]);
    try {
      const ended = `egress-${await endedPid()}-aB3`;
      const own = `egress-${process.pid}-x9Z`;
      const live = `egress-${sleeper.pid!}-q1W`;
      const init = "egress-1-r2D";
      for (const name of [ended, own, live, init, "egress-unnamed", "other"]) await mkdir(join(dir, name));
      expect((await removeOrphanedProxies(dir)).sort()).to.deep.equal([ended, own].sort());
      expect((await readdir(dir)).sort()).to.deep.equal([live, init, "egress-unnamed", "other"].sort());
    } finally {
      sleeper.kill();
    }
  });

  it("a proxy this process runs keeps its directory when another starts beside it, and removes it when closed", async () => {
    const logger = createLogger("error");
    const first = await EgressProxy.start(new OutboundPolicy(), logger);
    const second = await EgressProxy.start(new OutboundPolicy(), logger);
    try {
      expect(await removeOrphanedProxies()).to.deep.equal([]);
      const names = await readdir("/run/agent-sessions");
      for (const proxy of [first, second]) expect(names).to.include(proxy.socket.split("/").at(-2));
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
    const names = await readdir("/run/agent-sessions");
    for (const proxy of [first, second]) expect(names).to.not.include(proxy.socket.split("/").at(-2));
  });

  it("a directory that does not exist yet has no orphans", async () => {
    expect(await removeOrphanedProxies(join(dir, "absent"))).to.deep.equal([]);
  });
});
