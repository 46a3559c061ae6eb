/**
 * Where a deployment's threads run their tools: the deployment's workspace (shared by its threads, kept
 * when one ends), its user, the local backend's namespaces, and its secrets as variables of the
 * processes that run the agent's commands (read at each start, never in events, logs, files or
 * MongoDB). Deployments and their agents are made in the stores; threads are driven through the core
 * interface with the mock model.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { isAppError } from "../src/errors.js";
import { isolationAvailable } from "../src/agent-tools/sandbox/isolation-probe.js";
import { sandboxUser } from "../src/agent-tools/sandbox/sandbox.js";
import { insertDeployment, type TestDeployment } from "./support/deployment-records.js";
import { secret } from "./support/secrets.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { history, until } from "./support/sessions.js";
import { alive, answer, processesOf, toolCaller } from "./support/tool-calls.js";

const sha = (value: string) => createHash("sha256").update(value).digest("hex");
/** A command that prints `match` when the variable holds the value whose hash is given (the value itself is never in the command). */
const matches = (name: string, value: string) => `[ "$(printf %s "$${name}" | sha256sum | cut -c1-64)" = ${sha(value)} ] && echo match || echo differs`;

/** The text of every file under `dir`. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.isFile() ? [readFileSync(join(dir, e.name), "utf8")] : [],
  );
}

describe("deployment threads: placement, secrets and the local sandbox", () => {
  const root = `/tmp/agent-sessions-placement-ws-${process.pid}`;
  let server: TestServer;
  let api: Client;
  let orgId: string;
  const call = toolCaller(() => api);
  const isolated = () => isolationAvailable();

  before(async () => {
    server = await startServer({ WORKSPACE_ROOT: root });
    const org = `placement-${process.pid}-${Date.now()}`;
    api = client(server.url, await server.newKey(org));
    orgId = await server.core.stores.organizations.ensureOrganization(org);
  });
  after(async () => server?.close());

  const thread = async (d: TestDeployment) => {
    const res = await api.post("/v1/sessions", { agentId: d.doc.agentId, subjectId: d.doc.customerId });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id as string;
  };
  const newSecret = async (value: string) => (await server.core.inner.secrets.create(orgId, { name: "token", value: secret(value) }))._id;

  it("two threads of a deployment share its workspace, seen at /workspace; another deployment's thread sees none of it", async () => {
    const a = await insertDeployment(server, orgId);
    const b = await insertDeployment(server, orgId);
    const [a1, a2, b1] = [await thread(a), await thread(a), await thread(b)];
    const seen = isolated() ? "/workspace" : join(root, a.doc._id);
    expect(await call(a1, "terminal", { command: "echo shared > notes.txt; pwd" })).to.deep.equal({ ok: true, text: `${seen}\n` });
    expect(await call(a2, "terminal", { command: "cat notes.txt" })).to.deep.equal({ ok: true, text: "shared\n" });
    expect((await call(a2, "write_file", { path: "dir/more.txt", content: "more" })).ok).to.equal(true);
    expect(await call(a1, "read_file", { path: "dir/more.txt" })).to.deep.equal({ ok: true, text: "more" });
    expect(readFileSync(join(root, a.doc._id, "notes.txt"), "utf8")).to.equal("shared\n");
    // Neither thread has a workspace of its own.
    expect(existsSync(join(root, a1))).to.equal(false);
    const other = await call(b1, "terminal", { command: `cat notes.txt ${join(root, a.doc._id, "notes.txt")}; ls ${root}` });
    expect(other.ok).to.equal(false);
    expect(other.text).to.not.include("shared");
    if (isolated()) {
      const missing = (path: string) => `${path}: No such file or directory`;
      expect(other.text).to.equal(
        `cat: ${missing("notes.txt")}\ncat: ${missing(join(root, a.doc._id, "notes.txt"))}\nls: cannot access '${root}': No such file or directory\n\n[exit code 2]`,
      );
    }
  });

  it("a new thread's preparation makes the deployment's workspace, owned by the deployment's user, and none of its own", async () => {
    const d = await insertDeployment(server, orgId);
    const t = await thread(d);
    const workspace = join(root, d.doc._id);
    await until(
      async () => existsSync(workspace),
      (made) => made,
      10_000,
      "the deployment's workspace",
    );
    const uid = sandboxUser(d.doc._id)?.uid ?? process.getuid!();
    expect(statSync(workspace).uid).to.equal(uid);
    expect(existsSync(join(root, t))).to.equal(false);
  });

  it("a deployment's secret is a variable of its commands, background processes and code, and nowhere else", async () => {
    const value = `s3cr3t 'quoted' $(not run) ${Date.now()}\nsecond line`;
    const ref = await newSecret(value);
    const d = await insertDeployment(server, orgId, { secrets: { API_TOKEN: ref } });
    const t = await thread(d);
    expect(await call(t, "terminal", { command: matches("API_TOKEN", value) })).to.deep.equal({ ok: true, text: "match\n" });
    const { id } = answer(await call(t, "terminal", { command: matches("API_TOKEN", value), background: true }));
    expect(answer(await call(t, "process", { action: "wait", id }))).to.include({ status: "exited", output: "match\n" });
    const code = `import hashlib, os; print(hashlib.sha256(os.environ["API_TOKEN"].encode()).hexdigest() == "${sha(value)}")`;
    expect(await call(t, "execute_code", { language: "python", code })).to.deep.equal({ ok: true, text: "True\n" });
    // A command that prints the value shows the variable's name instead, in the foreground or the background.
    expect(await call(t, "terminal", { command: "env | grep -A1 API_TOKEN" })).to.deep.equal({ ok: true, text: "API_TOKEN=[secret $API_TOKEN]\n" });
    const printed = answer(await call(t, "terminal", { command: 'echo "[$API_TOKEN]"', background: true }));
    expect(answer(await call(t, "process", { action: "wait", id: printed.id }))).to.include({ output: "[[secret $API_TOKEN]]\n" });
    // Every response the test client reads (the history included) is scanned for the value; so is every log line.
    expect((await history(api, t)).length).to.be.greaterThan(0);
    expect(filesUnder(root).some((text) => text.includes(value))).to.equal(false);
    const db = server.core.connections.mongo.db;
    for (const { name } of await db.listCollections().toArray()) {
      expect(JSON.stringify(await db.collection(name).find({}).toArray()), name).to.not.include(value.slice(0, 12));
    }
  });

  it("a secret a command wrote into a file is shown by its variable's name when read_file or search_files shows the file", async () => {
    const value = `tok-${Date.now()}-9f8e7d`;
    const d = await insertDeployment(server, orgId, { secrets: { API_TOKEN: await newSecret(value) } });
    const t = await thread(d);
    await call(t, "terminal", { command: 'printf "token=%s\\n" "$API_TOKEN" > leaked.txt' });
    expect(await call(t, "read_file", { path: "leaked.txt" })).to.deep.equal({ ok: true, text: "token=[secret $API_TOKEN]\n" });
    const found = await call(t, "search_files", { pattern: "token=" });
    expect(found.text).to.include("[secret $API_TOKEN]").and.not.include(value);
    await call(t, "terminal", { command: "rm leaked.txt" });
  });

  it("a rotated secret and a changed map apply from the next tool call on", async () => {
    const first = `first-${Date.now()}`;
    const ref = await newSecret(first);
    const d = await insertDeployment(server, orgId, { secrets: { API_TOKEN: ref } });
    const t = await thread(d);
    expect((await call(t, "terminal", { command: matches("API_TOKEN", first) })).text).to.equal("match\n");
    const rotated = secret(`rotated-${Date.now()}`);
    await server.core.inner.secrets.replaceValue(orgId, ref, { value: rotated });
    expect((await call(t, "terminal", { command: matches("API_TOKEN", rotated) })).text).to.equal("match\n");
    const other = `other-${Date.now()}`;
    const otherRef = await newSecret(other);
    const changed = await d.store.changeSettings(d.doc, { ...d.doc.settings, secrets: { OTHER: otherRef } }, false);
    expect(changed).to.not.equal(null);
    expect((await call(t, "terminal", { command: `${matches("OTHER", other)}; echo "[\${API_TOKEN:-unset}]"` })).text).to.equal("match\n[unset]\n");
  });

  it("a secret its deployment names is not deleted; a reference that is gone fails the command, naming the variable", async () => {
    const ref = await newSecret(`kept-${Date.now()}`);
    const d = await insertDeployment(server, orgId, { secrets: { KEPT: ref } });
    const refused = await server.core.inner.secrets.delete(orgId, ref).catch((err: unknown) => err);
    expect(isAppError(refused, "conflict") && refused.message).to.include(d.doc._id);
    const t = await thread(d);
    await d.store.changeSettings(d.doc, { ...d.doc.settings, secrets: { KEPT: "sec_0000000000gone" } }, false);
    const failed = await call(t, "terminal", { command: "echo never" });
    expect(failed).to.deep.equal({ ok: false, text: "the deployment's secrets cannot be given to the command: secrets.KEPT: names no secret of this account" });
    await server.core.inner.secrets.delete(orgId, ref);
  });

  it("the workspace outlives a thread's deletion; the deployment's other threads keep using it", async () => {
    const d = await insertDeployment(server, orgId);
    const [t1, t2] = [await thread(d), await thread(d)];
    await call(t1, "write_file", { path: "keep.txt", content: "kept" });
    // A background process of the thread: the reaper ends it when it handles the thread's deletion.
    const { pid } = answer(await call(t1, "terminal", { command: "sleep 600", background: true }));
    expect((await api.delete(`/v1/sessions/${t1}`)).status).to.equal(200);
    await until(
      async () => alive(pid),
      (running) => !running,
      15_000,
      "the reaper to end the thread's processes",
    );
    expect(readFileSync(join(root, d.doc._id, "keep.txt"), "utf8")).to.equal("kept");
    expect(await call(t2, "read_file", { path: "keep.txt" })).to.deep.equal({ ok: true, text: "kept" });
  });

  it("a thread of a deployment that is gone runs no tool", async () => {
    const d = await insertDeployment(server, orgId);
    const t = await thread(d);
    await d.remove();
    const result = await call(t, "terminal", { command: "echo never" });
    expect(result).to.deep.equal({ ok: false, text: "the tool terminal cannot run: the deployment this thread belongs to is being deleted" });
  });

  describe("isolated (root, namespaces)", () => {
    before(function () {
      if (!isolated()) this.skip();
    });

    it("a command sees only its sandbox's processes, as the deployment's user without capabilities, and none of the service's environment", async () => {
      const d = await insertDeployment(server, orgId);
      const t = await thread(d);
      const uid = Number((await call(t, "terminal", { command: "id -u" })).text);
      expect(uid).to.be.greaterThanOrEqual(100_000);
      // PID 1 is the sandbox's init (bwrap, root), which reaps and ends the namespace with the command; every other process is the deployment's.
      const command =
        "hostname; grep CapEff /proc/self/status; cat /proc/1/comm; for p in /proc/[0-9]*; do [ $p = /proc/1 ] || stat -c %u $p; done | sort -u; cat /proc/1/environ /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c -E 'MONGO_URL|REDIS_URL|VAULT' || true";
      const { text } = await call(t, "terminal", { command });
      expect(text).to.equal(`sandbox\nCapEff:\t0000000000000000\nbwrap\n${uid}\n0\n`);
    });

    it("what a command leaves running, setsid or not, ends with it; /tmp is the deployment's and persists; other workspaces are hidden", async () => {
      const d = await insertDeployment(server, orgId);
      const [t1, t2] = [await thread(d), await thread(d)];
      const uid = Number((await call(t1, "terminal", { command: "id -u" })).text);
      expect((await call(t1, "terminal", { command: "(setsid sleep 600 &); sleep 600 & echo tmp > /tmp/kept; echo started" })).text).to.equal("started\n");
      expect(processesOf(uid)).to.deep.equal([]);
      expect(await call(t2, "terminal", { command: `cat /tmp/kept; ls ${root} 2>&1 | head -1` })).to.deep.equal({
        ok: true,
        text: `tmp\nls: cannot access '${root}': No such file or directory\n`,
      });
    });

    it("a deployment with its sandbox disabled asks for no container, and still gets the namespaces every session has", async () => {
      const ref = await newSecret(`plain-${Date.now()}`);
      const d = await insertDeployment(server, orgId, { sandbox: { enabled: false }, secrets: { PLAIN: ref } });
      const t = await thread(d);
      const value = (await server.core.inner.secrets.resolve(orgId, { PLAIN: ref })).PLAIN!;
      const { text } = await call(t, "terminal", { command: `pwd; hostname; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; ${matches("PLAIN", value)}` });
      expect(text).to.equal("/workspace\nsandbox\nlo\nmatch\n");
    });
  });
});
