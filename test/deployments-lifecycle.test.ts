import { existsSync, readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { deploymentBody, deploymentsClient, readyDeployment, settled } from "./support/deployments.js";
import { expectError } from "./support/expect.js";
import { listenLoopback } from "./support/mcp-tools.js";
import { until } from "./support/sessions.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";

const skill = (name: string) => `---\nname: ${name}\ndescription: Use when ${name} is asked for.\n---\nDo the thing.\n`;

describe("deployments: skills, provisioning errors and deletion", () => {
  let server: TestServer;
  let api: Client;
  let coreKey: string;
  let root: string;
  let skills: Awaited<ReturnType<typeof listenLoopback>>;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), "deployments-"));
    server = await startServer({ WORKSPACE_ROOT: root, DEPLOYMENT_SNAPSHOT_RETENTION_MS: "1500", DEPLOYMENT_SWEEP_INTERVAL_MS: "200" });
    const org = `org-lifecycle-${Date.now()}`;
    ({ api } = await deploymentsClient(server, undefined, org));
    coreKey = await server.newKey(org);
    skills = await listenLoopback(async (req, res) => {
      if (req.url === "/skills/triage.md") {
        res.writeHead(200, { "content-type": "text/markdown" }).end(skill("triage"));
      } else res.writeHead(404).end("no");
    });
  });
  after(async () => {
    await skills.close();
    await server.close();
  });

  const agentSkills = async (deploymentId: string): Promise<string[]> => {
    const core = client(server.url, coreKey);
    const agent = ((await core.get("/v1/agents?limit=100")).body.data as any[]).find((a) => a.metadata?.deploymentId === deploymentId);
    return agent.version.skills;
  };

  it("fetches url skills and refuses one that cannot be fetched or parsed with 422 invalid_skill", async () => {
    const d = await readyDeployment(api, {
      skills: [
        { name: "triage", source: "url", url: `${skills.origin}/skills/triage.md` },
        { name: "inline-one", source: "inline", content: skill("inline-one") },
      ],
    });
    expect(await agentSkills(d.deployment_id)).to.deep.equal(["triage", "inline-one"]);
    const missing = await api.post("/v1/deployments", deploymentBody({ skills: [{ name: "gone", source: "url", url: `${skills.origin}/skills/gone.md` }] }));
    expectError(missing, 422, "invalid_skill");
    expect(missing.body.message).to.equal("skills[0] (gone): cannot be fetched: the address answered HTTP 404");
    const privateAddress = await api.post(
      "/v1/deployments",
      deploymentBody({ skills: [{ name: "meta", source: "url", url: "http://169.254.169.254/latest/meta-data" }] }),
    );
    expectError(privateAddress, 422, "invalid_skill");
    expect(privateAddress.body.message).to.match(/^skills\[0\] \(meta\): cannot be fetched: /);
    const unparsed = await api.post("/v1/deployments", deploymentBody({ skills: [{ name: "plain", source: "inline", content: "no front matter here" }] }));
    expectError(unparsed, 422, "invalid_skill");
    expect(unparsed.body.message).to.match(/^skills\[0\] \(plain\): cannot be parsed: the content must start with YAML front matter/);
    const wrongName = await api.post(
      "/v1/deployments",
      deploymentBody({ skills: [{ name: "other", source: "url", url: `${skills.origin}/skills/triage.md` }] }),
    );
    expectError(wrongName, 422, "invalid_skill");
  });

  it("reads file skills from files uploaded to the deployment", async () => {
    const early = await api.post("/v1/deployments", deploymentBody({ skills: [{ name: "local", source: "file", path: "skills/local.md" }] }));
    expectError(early, 422, "invalid_skill");
    const d = await readyDeployment(api);
    const patch = () => api.patch(`/v1/deployments/${d.deployment_id}`, { skills: [{ name: "local", source: "file", path: "skills/local.md" }] });
    expectError(await patch(), 422, "invalid_skill");
    const put = await api.put(`/v1/deployments/${d.deployment_id}/files/${encodeURIComponent("skills/local.md")}`, undefined, {
      raw: skill("local"),
      headers: { "content-type": "text/markdown" },
    });
    expect(put.status).to.equal(200);
    expect((await patch()).status).to.equal(200);
    expect(await agentSkills(d.deployment_id)).to.deep.equal(["local"]);
  });

  it("refuses a secret reference that names no secret with 422 invalid_secret_ref", async () => {
    const res = await api.post("/v1/deployments", deploymentBody({ secrets: { STRIPE_KEY: "sec_doesnotexist" } }));
    expectError(res, 422, "invalid_secret_ref");
    expect(res.body.message).to.equal("secrets.STRIPE_KEY: names no secret of this account");
  });

  it("ends provisioning in error with the reason when an MCP server cannot be reached, and provisions again after a fixing update", async () => {
    const created = await api.post("/v1/deployments", deploymentBody({ mcp_servers: [{ name: "down", url: "http://127.0.0.1:1/mcp" }] }));
    expect(created.status).to.equal(201);
    const failed = await settled(api, created.body.deployment_id);
    expect(failed.status).to.equal("error");
    expect(failed.status_reason).to.match(/^MCP server down could not be reached: /);
    expectError(await api.post(`/v1/deployments/${failed.deployment_id}/threads`, {}), 409, "invalid_state");
    expectError(await api.get(`/v1/deployments/${failed.deployment_id}/events`), 409, "invalid_state");
    expect((await api.get(`/v1/deployments?status=error`)).body.data.map((x: any) => x.deployment_id)).to.include(failed.deployment_id);
    const fixed = await api.patch(`/v1/deployments/${failed.deployment_id}`, { mcp_servers: [] });
    expect(fixed.body.status).to.equal("provisioning");
    expect((await settled(api, failed.deployment_id)).status).to.equal("ready");
  });

  it("deletes a deployment: its threads, agent and workspace go", async () => {
    const d = await readyDeployment(api);
    const workspace = join(root, d.deployment_id);
    await until(async () => existsSync(workspace), Boolean, 5_000, "the workspace");
    const res = await api.delete(`/v1/deployments/${d.deployment_id}`);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ deployment_id: d.deployment_id, status: "deleted" });
    expectError(await api.get(`/v1/deployments/${d.deployment_id}`), 404, "not_found");
    expectError(await api.delete(`/v1/deployments/${d.deployment_id}`), 404, "not_found");
    const core = client(server.url, coreKey);
    await until(
      () => core.get(`/v1/sessions/${d.thread_id}`),
      (r) => r.status === 404,
      10_000,
      "the thread gone",
    );
    await until(async () => !existsSync(workspace), Boolean, 10_000, "the workspace removed");
    expect(existsSync(join(root, ".snapshots", d.deployment_id))).to.equal(false);
  });

  it("keeps a snapshot of the workspace with retain_filesystem, and the sweep removes it after the retention", async () => {
    const d = await readyDeployment(api);
    await api.put(`/v1/deployments/${d.deployment_id}/files/notes.txt`, undefined, { raw: "kept", headers: { "content-type": "text/plain" } });
    expectError(await api.delete(`/v1/deployments/${d.deployment_id}?retain_filesystem=maybe`), 400, "validation_error");
    expect((await api.delete(`/v1/deployments/${d.deployment_id}?retain_filesystem=true`)).status).to.equal(200);
    const snapshot = join(root, ".snapshots", d.deployment_id);
    await until(async () => existsSync(join(snapshot, "notes.txt")), Boolean, 10_000, "the snapshot");
    expect(readFileSync(join(snapshot, "notes.txt"), "utf8")).to.equal("kept");
    expect(existsSync(join(root, d.deployment_id))).to.equal(false);
    await until(async () => !existsSync(snapshot), Boolean, 10_000, "the snapshot swept after its retention");
  });
});
