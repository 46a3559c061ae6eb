/**
 * The `docker` sandbox backend, through the deployments interface, on a real Docker engine: the one
 * `scripts/docker-engine.sh` starts (CI runs it and sets TEST_DOCKER_HOST) with its busybox image.
 * Without an engine, these tests are skipped and say so.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { sandboxUser } from "../src/agent-tools/sandbox/sandbox.js";
import { deploymentsClient, readyDeployment, runTool, settled, deploymentBody } from "./support/deployments.js";
import { secret } from "./support/secrets.js";
import { until } from "./support/sessions.js";
import { startServer, type Client, type TestServer } from "./support/server.js";

const host = process.env.TEST_DOCKER_HOST;
const image = process.env.TEST_DOCKER_IMAGE ?? "agent-sessions-sandbox:test";
const sha = (value: string) => createHash("sha256").update(value).digest("hex");

/** The ids of the deployment's containers on the engine, running or not. */
function containersOf(deploymentId: string): string[] {
  const listed = spawnSync("docker", ["ps", "--all", "--quiet", "--filter", `label=agent-sessions.deployment=${deploymentId}`], {
    env: { ...process.env, DOCKER_HOST: host },
    encoding: "utf8",
  });
  return listed.stdout.split("\n").filter(Boolean);
}

describe("deployments: the docker sandbox backend, on a real engine", function () {
  let server: TestServer;
  let api: Client;
  let root: string;

  before(async function () {
    if (!host) {
      console.log("    (no Docker engine: TEST_DOCKER_HOST is unset; run scripts/docker-engine.sh to test the docker backend)");
      this.skip();
    }
    root = await mkdtemp(join(tmpdir(), "dep-docker-"));
    server = await startServer({ WORKSPACE_ROOT: root, DOCKER_HOST: host!, DEPLOYMENT_DOCKER_IMAGE: image, DEPLOYMENT_DOCKER_NETWORK: "none" });
    ({ api } = await deploymentsClient(server));
  });
  after(async () => server?.close());

  it("runs a deployment's commands in a container of the image, as its user, in its workspace at /workspace, with its secrets", async () => {
    const value = `${secret()} with 'quotes' and  spaces `;
    const s = await api.post("/v1/secrets", { name: "token", value });
    const d = await readyDeployment(api, { secrets: { API_TOKEN: s.body.secret_id }, features: { steering: false } });
    expect(d.filesystem.workspace_path).to.equal("/workspace");
    const user = sandboxUser(d.deployment_id)!;
    // Only the busybox image has /bin/busybox, and it is not Debian as the host is; the network is none.
    const seen = await runTool(api, d, d.thread_id, "terminal", {
      command: `id -u; pwd; hostname; test -x /bin/busybox && echo image; test -e /etc/debian_version || echo no-host-debian; ls /sys/class/net; [ "$(printf %s "$API_TOKEN" | sha256sum | cut -c1-64)" = ${sha(value)} ] && echo secret; echo made > made.txt`,
    });
    expect(seen.split("\n")).to.deep.equal([String(user.uid), "/workspace", "sandbox", "image", "no-host-debian", "lo", "secret", ""]);
    const made = await stat(join(root, d.deployment_id, "made.txt"));
    expect([made.uid, made.gid]).to.deep.equal([user.uid, user.gid]);
    const history = JSON.stringify((await api.get(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events?limit=100`)).body);
    expect(history).to.not.include(value.trim());
    // Each command's container is gone when it ends.
    expect(containersOf(d.deployment_id)).to.deep.equal([]);
  });

  it("keeps /tmp and the workspace across commands and threads; limits the processes", async () => {
    const d = await readyDeployment(api, { features: { steering: false } });
    await runTool(api, d, d.thread_id, "terminal", { command: "echo kept > /tmp/note" });
    const other = (await api.post(`/v1/deployments/${d.deployment_id}/threads`, {})).body.thread_id;
    expect(
      await runTool(api, d, other, "terminal", { command: "cat /tmp/note; cat /sys/fs/cgroup/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids/pids.max" }),
    ).to.equal("kept\n128\n");
  });

  it("a secret with a line break is refused by name, never shown", async () => {
    const value = `${secret()}\nsecond line`;
    const s = await api.post("/v1/secrets", { name: "pem", value });
    const d = await readyDeployment(api, { secrets: { PEM: s.body.secret_id }, features: { steering: false } });
    const text = await runTool(api, d, d.thread_id, "terminal", { command: "echo ran" });
    expect(text).to.include("PEM").and.include("line break").and.not.include("second line");
  });

  it("a killed background command's container is removed; the deletion removes every container of the deployment", async () => {
    const d = await readyDeployment(api, { features: { steering: false } });
    const started = JSON.parse(await runTool(api, d, d.thread_id, "terminal", { command: "sleep 600", background: true }));
    await until(
      async () => containersOf(d.deployment_id),
      (ids) => ids.length === 1,
      15_000,
      "the background command's container",
    );
    await runTool(api, d, d.thread_id, "process", { action: "kill", id: started.id });
    await until(
      async () => containersOf(d.deployment_id),
      (ids) => ids.length === 0,
      15_000,
      "the killed command's container to go",
    );
    await runTool(api, d, d.thread_id, "terminal", { command: "sleep 600", background: true });
    await until(
      async () => containersOf(d.deployment_id),
      (ids) => ids.length === 1,
      15_000,
      "the second container",
    );
    expect((await api.delete(`/v1/deployments/${d.deployment_id}`)).status).to.equal(200);
    await until(
      async () => containersOf(d.deployment_id),
      (ids) => ids.length === 0,
      15_000,
      "the deployment's containers to go",
    );
  });

  it("sandbox.type local gets the namespaces instead (the host's programs)", async () => {
    const d = await readyDeployment(api, { sandbox: { type: "local" }, features: { steering: false } });
    expect(await runTool(api, d, d.thread_id, "terminal", { command: `test -e /etc/debian_version && echo host-debian; pwd` })).to.equal(
      "host-debian\n/workspace\n",
    );
  });

  it("an image the engine does not have and cannot pull puts the deployment in error, naming the image", async () => {
    const missing = await startServer({
      WORKSPACE_ROOT: root,
      DOCKER_HOST: host!,
      DEPLOYMENT_DOCKER_IMAGE: "127.0.0.1:9/agent-sessions/missing:none",
      DEPLOYMENT_DOCKER_NETWORK: "none",
    });
    try {
      const { api: other } = await deploymentsClient(missing);
      const created = await other.post("/v1/deployments", deploymentBody());
      const d = await settled(other, created.body.deployment_id, 30_000);
      expect(d.status).to.equal("error");
      expect(d.status_reason).to.include("127.0.0.1:9/agent-sessions/missing:none").and.include("cannot be pulled");
    } finally {
      await missing.close();
    }
  });
});
