/**
 * `npm start` and the CLI against the local services with no variables (issue 32): the stores' URLs, with
 * their passwords, come from the state directory `scripts/services.sh` keeps, and a vault key is made there
 * once, so vaults work from the first start; a production start never makes one. And the run's stores, when
 * locked, refuse a client without the password.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { Redis } from "ioredis";
import { MongoClient } from "mongodb";
import { cli } from "./support/cli.js";
import { env } from "./support/hooks.js";
import { startProcess, type ServiceProcess } from "./support/processes.js";
import { secret } from "./support/secrets.js";
import { client } from "./support/server.js";

const CREDENTIAL = (token: string) => ({ displayName: "Search", auth: { type: "static_bearer", mcpServerUrl: "https://search.example.com/mcp", token } });

describe("a local start without variables (the state directory)", () => {
  let dir: string;
  const keyFile = () => join(dir, "secrets", "vault.key");
  /** Nothing the suite's environment gives a service process: what a newcomer's shell has. */
  const bare = (extra: Record<string, string> = {}) => ({
    SERVICES_DIR: dir,
    MONGO_URL: undefined,
    REDIS_URL: undefined,
    VAULT_ENCRYPTION_KEY: undefined,
    VAULT_DECRYPTION_KEYS: undefined,
    NODE_ENV: undefined,
    REDIS_KEY_PREFIX: `${env.redisKeyPrefix}-local`,
    DEPLOYMENT_DOCKER: "off",
    ...extra,
  });
  /** An API key made by the CLI with the same bare environment. */
  const keyFor = async (org: string, extra: Record<string, string> = {}) => {
    const made = await cli(["keys", "create", "--org", org], bare(extra));
    expect(made.code, made.stderr).to.equal(0);
    return secret(made.stdout.trim());
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "local-start-"));
    // What scripts/services.sh writes: here, the run's own stores.
    mkdirSync(join(dir, "secrets"), { mode: 0o700 });
    writeFileSync(join(dir, "secrets", "credentials.env"), `MONGO_URL='${env.mongoUrl}'\nREDIS_URL='${env.redisUrl}'\n`, { mode: 0o600 });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("finds the stores, makes a vault key once (0600), says where, and a credential made before a restart is usable after it", async () => {
    let service: ServiceProcess | undefined = await startProcess("all", bare());
    try {
      expect(statSync(keyFile()).mode & 0o777).to.equal(0o600);
      expect(statSync(join(dir, "secrets")).mode & 0o777).to.equal(0o700);
      const key = secret(readFileSync(keyFile(), "utf8").trim());
      expect(Buffer.from(key, "base64")).to.have.length(32);
      const log = service.output();
      expect(log).to.include(`"file":"${keyFile()}","msg":"vault key made for the local services"`);
      expect(log).to.include(`"msg":"MONGO_URL and REDIS_URL (with their passwords) from the local services' credentials"`);
      expect(log).to.not.include("VAULT_ENCRYPTION_KEY is not set");
      // The start log says where a browser finds the console.
      expect(log).to.include(`"console":"${service.url}/console/","msg":"listening"`);

      // The CLI finds the same stores with no variables either.
      const apiKey = await keyFor(`local-start-${process.pid}-${Date.now()}`);
      const api = client(service.url, apiKey);
      const vault = await api.post("/v1/vaults", { displayName: "Team tools" });
      expect(vault.status).to.equal(201);
      expect((await api.post(`/v1/vaults/${vault.body.id}/credentials`, CREDENTIAL(secret()))).status).to.equal(201);
      const agent = await api.post("/v1/agents", {
        name: "Searcher",
        modelName: "mock/echo",
        systemPrompt: "",
        skills: [],
        tools: [],
        mcpServers: [{ type: "url", name: "search", url: "https://search.example.com/mcp" }],
      });
      expect(agent.status).to.equal(201);
      const attached = await api.put(`/v1/agents/${agent.body.id}/vaults`, { vaultIds: [vault.body.id], expectedUpdatedAt: agent.body.updatedAt });
      expect(attached.body.mcpServers[0].status).to.equal("connected");

      expect(await service.stop()).to.equal(0);
      service = await startProcess("all", bare());
      expect(service.output()).to.include(`"file":"${keyFile()}","msg":"vault key of the local services"`);
      expect(readFileSync(keyFile(), "utf8").trim()).to.equal(key);
      // Sealed with the key of the first start, opened by the second: the same key.
      const after = client(service.url, apiKey);
      expect((await after.get(`/v1/agents/${agent.body.id}/vaults`)).body.mcpServers[0].status).to.equal("connected");
    } finally {
      await service?.stop();
    }
  });

  it("a production start makes no key: it warns at start, and credentials answer 503", async () => {
    const service = await startProcess("all", bare({ NODE_ENV: "production" }));
    try {
      expect(service.output()).to.include("VAULT_ENCRYPTION_KEY is not set");
      expect(() => statSync(keyFile())).to.throw();
      const api = client(service.url, await keyFor(`local-prod-${process.pid}-${Date.now()}`, { NODE_ENV: "production" }));
      const vault = await api.post("/v1/vaults", { displayName: "Team tools" });
      expect(vault.status).to.equal(201);
      expect((await api.post(`/v1/vaults/${vault.body.id}/credentials`, CREDENTIAL(secret()))).status).to.equal(503);
    } finally {
      await service.stop();
    }
  });
});

describe("locked stores", () => {
  const withoutCredentials = (raw: string) => {
    const url = new URL(raw);
    url.username = "";
    url.password = "";
    url.searchParams.delete("authMechanism");
    url.searchParams.delete("authSource");
    return url.toString();
  };

  it("Redis and MongoDB refuse a client without the password", async function () {
    const locked = [env.mongoUrl, env.redisUrl].every((u) => new URL(u).password !== "");
    if (!locked) {
      process.stderr.write("    (the run's stores take no password: started by an earlier scripts/services.sh, or given so by MONGO_URL and REDIS_URL)\n");
      this.skip();
    }
    // No ready check: its INFO would be refused before the command under test is sent.
    const redis = new Redis(withoutCredentials(env.redisUrl), {
      lazyConnect: true,
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    redis.on("error", () => undefined);
    try {
      await redis.connect();
      await expectRejection(redis.get("any"), /NOAUTH/);
    } finally {
      redis.disconnect();
    }
    const mongo = new MongoClient(withoutCredentials(env.mongoUrl), { serverSelectionTimeoutMS: 5_000 });
    try {
      await expectRejection(
        mongo.connect().then(() => mongo.db().listCollections().toArray()),
        /./,
      );
    } finally {
      await mongo.close();
    }
  });
});

async function expectRejection(promise: Promise<unknown>, message: RegExp): Promise<void> {
  const outcome = await promise.then(
    () => undefined,
    (err: Error) => err,
  );
  expect(outcome, "the store answered a client without its password").to.be.instanceOf(Error);
  expect(outcome!.message).to.match(message);
}
