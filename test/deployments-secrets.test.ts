import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { isolationAvailable } from "../src/agent-tools/sandbox/isolation-probe.js";
import { deploymentsClient, readyDeployment, runTool } from "./support/deployments.js";
import { expectError, expectValidation } from "./support/expect.js";
import { secret } from "./support/secrets.js";
import { startServer, type Client, type TestServer } from "./support/server.js";

const sha = (value: string) => createHash("sha256").update(value).digest("hex");
/** Prints `match` when the variable holds the value (the value itself is never in the command). */
const matches = (name: string, value: string) => `[ "$(printf %s "$${name}" | sha256sum | cut -c1-64)" = ${sha(value)} ] && echo match || echo differs`;

describe("deployments: secrets and the workspace, through the deployments interface", () => {
  let server: TestServer;
  let api: Client;

  before(async () => {
    server = await startServer({ WORKSPACE_ROOT: await mkdtemp(join(tmpdir(), "dep-secrets-")) });
    ({ api } = await deploymentsClient(server));
  });
  after(async () => server.close());

  const tool = (d: any, thread: string, name: string, input: unknown) => runTool(api, d, thread, name, input);

  it("stores secrets that are never shown again, and refuses to delete one a deployment uses", async () => {
    const value = secret();
    const created = await api.post("/v1/secrets", { name: "Stripe key", value });
    expect(created.status).to.equal(201);
    expect(created.body).to.have.keys("secret_id", "name", "created_at", "updated_at");
    const id = created.body.secret_id;
    expect(id).to.match(/^sec_/);
    expect((await api.get(`/v1/secrets/${id}`)).body.name).to.equal("Stripe key");
    expect((await api.get("/v1/secrets")).body.data.map((s: any) => s.secret_id)).to.include(id);
    const d = await readyDeployment(api, { secrets: { STRIPE_KEY: id } });
    expectError(await api.delete(`/v1/secrets/${id}`), 409, "conflict");
    await api.patch(`/v1/deployments/${d.deployment_id}`, { secrets: { STRIPE_KEY: null } });
    expect((await api.delete(`/v1/secrets/${id}`)).body).to.deep.equal({ secret_id: id, status: "deleted" });
    expectError(await api.get(`/v1/secrets/${id}`), 404, "not_found");
    expectValidation(await api.post("/v1/secrets", { name: "x" }), "value: is required");
    const { api: reader } = await deploymentsClient(server, ["deployments:read"]);
    expectError(await reader.post("/v1/secrets", { name: "x", value: secret() }), 403, "forbidden");
    const { api: stranger } = await deploymentsClient(server);
    const mine = await api.post("/v1/secrets", { name: "mine", value: secret() });
    expectError(await stranger.get(`/v1/secrets/${mine.body.secret_id}`), 404, "not_found");
    expectError(
      await stranger.post("/v1/deployments", { customer_id: "c", name: "n", system_prompt: "p", model: "mock/echo", secrets: { X: mine.body.secret_id } }),
      422,
      "invalid_secret_ref",
    );
  });

  it("renames a secret to a name with U+0000: stored where the database can, else 400, never a 500", async () => {
    const created = await api.post("/v1/secrets", { name: "plain", value: secret() });
    const renamed = await api.patch(`/v1/secrets/${created.body.secret_id}`, { name: "a\u0000b" });
    if (renamed.status === 200) expect(renamed.body.name).to.equal("a\u0000b");
    else expectValidation(renamed, "body: strings must not contain U+0000 (this database cannot store it)");
  });

  it("gives a secret to the deployment's tool processes as a variable, and a rotation to the next command", async () => {
    const first = secret();
    const s = await api.post("/v1/secrets", { name: "token", value: first });
    const d = await readyDeployment(api, { secrets: { API_TOKEN: s.body.secret_id }, features: { steering: false } });
    expect(await tool(d, d.thread_id, "terminal", { command: matches("API_TOKEN", first) })).to.equal("match\n");
    const rotated = secret();
    await api.patch(`/v1/secrets/${s.body.secret_id}`, { value: rotated });
    expect(await tool(d, d.thread_id, "terminal", { command: matches("API_TOKEN", rotated) })).to.equal("match\n");
    const history = JSON.stringify((await api.get(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events?limit=100`)).body);
    expect(history).to.not.include(first).and.not.include(rotated);
  });

  it("runs tools in the workspace the deployment reports, with its uploaded files; threads share it when persistent", async () => {
    const d = await readyDeployment(api, { features: { steering: false } });
    expect(d.filesystem.workspace_path).to.equal(isolationAvailable() ? "/workspace" : join(server.core.process.config.workspaceRoot, d.deployment_id));
    await api.put(`/v1/deployments/${d.deployment_id}/files/seed.txt`, undefined, { raw: "seeded", headers: { "content-type": "text/plain" } });
    expect(await tool(d, d.thread_id, "terminal", { command: "pwd; cat seed.txt; echo mine > made.txt" })).to.equal(`${d.filesystem.workspace_path}\nseeded`);
    const other = (await api.post(`/v1/deployments/${d.deployment_id}/threads`, {})).body.thread_id;
    expect(await tool(d, other, "terminal", { command: "cat made.txt" })).to.equal("mine\n");
  });

  it("never writes an upload through a link a tool left in the workspace", async () => {
    const d = await readyDeployment(api, { features: { steering: false } });
    const outside = await mkdtemp(join(tmpdir(), "dep-outside-"));
    await tool(d, d.thread_id, "terminal", { command: `ln -s ${outside} escape && echo linked` });
    const res = await api.put(`/v1/deployments/${d.deployment_id}/files/${encodeURIComponent("escape/planted.txt")}`, undefined, {
      raw: "x",
      headers: { "content-type": "text/plain" },
    });
    expectValidation(res);
    expect(existsSync(join(outside, "planted.txt"))).to.equal(false);
  });

  it("gives each thread a workspace of its own, copied from the uploads, when the filesystem is not persistent", async () => {
    const d = await readyDeployment(api, { sandbox: { persistent_filesystem: false }, features: { steering: false } });
    expect(d.filesystem.persistent).to.equal(false);
    await api.put(`/v1/deployments/${d.deployment_id}/files/seed.txt`, undefined, { raw: "seeded", headers: { "content-type": "text/plain" } });
    expect(await tool(d, d.thread_id, "terminal", { command: "cat seed.txt; echo mine > made.txt; cat made.txt" })).to.equal("seededmine\n");
    const other = (await api.post(`/v1/deployments/${d.deployment_id}/threads`, {})).body.thread_id;
    expect(await tool(d, other, "terminal", { command: "cat seed.txt; ls made.txt 2>/dev/null || echo absent" })).to.equal("seededabsent\n");
  });
});
