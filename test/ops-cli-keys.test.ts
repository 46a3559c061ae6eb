/**
 * The operator command line's keys: `agent-sessions ops keys create | list | revoke`, run as a child process
 * against the run's database, and what the API then does with those keys (accepted within their scopes;
 * refused with 401 once revoked).
 */
import { expect } from "chai";
import { KEY_CACHE_TTL_MS } from "../src/accounts/store/key-cache.js";
import { hashKey } from "../src/accounts/store/organizations.js";
import { cli } from "./support/cli.js";
import { expectError } from "./support/expect.js";
import { secret } from "./support/secrets.js";
import { client, startServer, type TestServer } from "./support/server.js";
import { until } from "./support/sessions.js";

let orgs = 0;
const newOrg = () => `ops-keys-${process.pid}-${Date.now()}-${++orgs}`;

/** `keys create`: the key (a secret of the suite from now on) and the id it reported on stderr. */
async function created(args: string[]): Promise<{ key: string; id: string }> {
  const run = await cli(["ops", "keys", "create", ...args]);
  expect(run.code, run.stderr).to.equal(0);
  const key = secret(run.stdout.trim());
  expect(key).to.match(/^ask_[A-Za-z0-9_-]{43}$/);
  const id = /^created (key_[0-9a-f]{32}) for /.exec(run.stderr)?.[1];
  expect(id, run.stderr).to.be.a("string");
  return { key, id: id! };
}

describe("ops CLI: keys", () => {
  let server: TestServer;

  before(async () => {
    server = await startServer();
  });
  after(async () => server.close());

  it("create prints only the key, once, and the API accepts it within its scopes; --json gives the id beside it", async () => {
    const org = newOrg();
    const { key, id } = await created(["--org", org, "--name", "ci bot"]);
    expect(id).to.equal(`key_${hashKey(key).slice(0, 32)}`);
    expect((await client(server.url, key).get("/v1/agents")).status).to.equal(200);

    const json = await cli(["ops", "keys", "create", "--org", org, "--scopes", "deployments:read,deployments:write", "--json"]);
    expect(json.code, json.stderr).to.equal(0);
    const made = JSON.parse(json.stdout) as { id: string; key: string; org: string; scopes: string[]; name: string | null };
    secret(made.key);
    expect(made).to.deep.include({ org, scopes: ["deployments:read", "deployments:write"], name: null });
    expect(made.id).to.equal(`key_${hashKey(made.key).slice(0, 32)}`);
    expectError(await client(server.url, made.key).get("/v1/agents"), 403, "forbidden");

    // The top-level `keys`, from before the ops group, is the same command.
    const listed = await cli(["ops", "keys", "list", "--org", org, "--json"]);
    expect(await cli(["keys", "list", "--org", org, "--json"])).to.deep.equal(listed);
  });

  it("list shows each key's id, name, scopes, creation and revocation, and never a secret or a hash", async () => {
    const org = newOrg();
    const first = await created(["--org", org, "--name", "ci bot"]);
    const second = await created(["--org", org, "--scopes", "api,deployments:read"]);
    expect((await cli(["ops", "keys", "revoke", second.id])).code).to.equal(0);

    const json = await cli(["ops", "keys", "list", "--org", org, "--json"]);
    expect(json.code, json.stderr).to.equal(0);
    const keys = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(keys.map((k) => [k.id, k.name, k.scopes])).to.deep.equal([
      [first.id, "ci bot", ["api"]],
      [second.id, null, ["api", "deployments:read"]],
    ]);
    expect(keys[0]!.revokedAt).to.equal(null);
    expect(Date.parse(keys[1]!.revokedAt as string)).to.be.at.least(Date.parse(keys[1]!.createdAt as string));

    const table = await cli(["ops", "keys", "list", "--org", org]);
    expect(table.code).to.equal(0);
    const rows = table.stdout.trimEnd().split("\n");
    expect(rows[0]).to.match(/^ID\s+NAME\s+SCOPES\s+CREATED\s+REVOKED$/);
    expect(rows[1]).to.match(new RegExp(`^${first.id}\\s+ci bot\\s+api\\s+\\S+Z\\s+-$`));
    expect(rows[2]).to.match(new RegExp(`^${second.id}\\s+-\\s+api,deployments:read\\s+\\S+Z\\s+\\S+Z$`));
    for (const out of [json.stdout, table.stdout]) {
      for (const k of [first.key, second.key]) expect(out).to.not.include(hashKey(k)).and.not.include(k.slice(4, 20));
    }
  });

  it("revoke: the API answers 401 at once for a key it has not cached, and within its key cache's lifetime for one it has", async () => {
    const org = newOrg();
    const used = await created(["--org", org]);
    const unused = await created(["--org", org]);
    const usedApi = client(server.url, used.key);
    expect((await usedApi.get("/v1/agents")).status).to.equal(200);

    for (const k of [used, unused]) {
      const run = await cli(["ops", "keys", "revoke", k.id]);
      expect(run, run.stderr).to.include({ code: 0 });
      expect(run.stdout).to.equal(`revoked ${k.id} of ${org}; running API processes refuse it within ${KEY_CACHE_TTL_MS / 1000} s\n`);
    }
    expectError(await client(server.url, unused.key).get("/v1/agents"), 401, "unauthorized");
    // Revoked by another process: this server's cache may hold the key until its entry expires.
    await until(
      () => usedApi.get("/v1/agents"),
      (r) => r.status === 401,
      KEY_CACHE_TTL_MS * 3,
      "the cached key to be refused",
    );
    expectError(await usedApi.get("/v1/agents"), 401, "unauthorized");

    const again = await cli(["ops", "keys", "revoke", used.id]);
    expect(again.code).to.equal(0);
    expect(again.stdout).to.match(new RegExp(`^${used.id} of ${org} was already revoked \\(\\S+Z\\)\n$`));
  });

  it("usage problems exit 2 with the command's usage; an unknown organization or key exits 1 saying so", async () => {
    for (const args of [
      ["ops", "keys", "create"],
      ["ops", "keys", "create", "--org", "x", "--scopes", "api,root"],
      ["ops", "keys", "create", "--org", " "],
      ["ops", "keys", "revoke", "not-a-key-id"],
      ["ops", "keys", "list"],
      ["ops", "keys", "rotate"],
    ]) {
      const run = await cli(args);
      expect(run.code, args.join(" ")).to.equal(2);
      expect(run.stdout, args.join(" ")).to.equal("");
      expect(run.stderr, args.join(" "))
        .to.match(/^error: /)
        .and.include("Usage: agent-sessions ops keys");
    }
    const nobody = await cli(["ops", "keys", "list", "--org", `${newOrg()}-nobody`]);
    expect(nobody).to.include({ code: 1, stdout: "" });
    expect(nobody.stderr).to.match(/^agent-sessions: no organization is named ".+-nobody" \(ops keys create makes one\)\n$/);
    const unknown = await cli(["ops", "keys", "revoke", "key_0123456789abcdef0123456789abcdef"]);
    expect(unknown).to.include({ code: 1, stderr: "agent-sessions: no API key has the id key_0123456789abcdef0123456789abcdef\n" });
  });

  it("a bad or unreachable MONGO_URL is a configuration or connection error naming the variable", async () => {
    const bad = await cli(["ops", "keys", "list", "--org", "acme"], { MONGO_URL: "http://127.0.0.1/db" });
    expect(bad).to.include({ code: 1, stderr: "agent-sessions: configuration error: MONGO_URL must use one of the schemes mongodb, mongodb+srv\n" });
    const closed = await cli(["ops", "keys", "list", "--org", "acme"], { MONGO_URL: "mongodb://127.0.0.1:1/db" });
    expect(closed.code).to.equal(1);
    expect(closed.stderr).to.match(/^agent-sessions: cannot reach MongoDB \(MONGO_URL=mongodb:\/\/127\.0\.0\.1:1\/db\): /);
  });
});
