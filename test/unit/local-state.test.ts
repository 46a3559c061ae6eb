/** What a local start takes from the state directory: the stores' URLs for unset variables, and a vault key made once, never in production. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { ConfigError, loadConfig } from "../../src/config.js";
import { withLocalState } from "../../src/local-state.js";

const MONGO = "mongodb://agent_sessions:6d6f6e676f@127.0.0.1:27030/agent_sessions?authMechanism=PLAIN";
const REDIS = "redis://:7265646973@127.0.0.1:6390";

describe("local state (the state directory of scripts/services.sh)", () => {
  let dir: string;
  const secrets = () => join(dir, "secrets");
  const keyFile = () => join(secrets(), "vault.key");
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "local-state-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function writeCredentials(): void {
    mkdirSync(secrets(), { mode: 0o700 });
    writeFileSync(join(secrets(), "credentials.env"), `# made by services.sh\nREDIS_PASSWORD='7265646973'\nMONGO_URL='${MONGO}'\nREDIS_URL='${REDIS}'\n`, {
      mode: 0o600,
    });
  }

  it("gives the credentials file's URLs, with their passwords, to the variables left unset, and says where they came from", () => {
    writeCredentials();
    const local = withLocalState({ SERVICES_DIR: dir }, { vaultKey: false });
    const config = loadConfig(local.env);
    expect([config.mongoUrl, config.redisUrl]).to.deep.equal([MONGO, REDIS]);
    expect(local.notes).to.deep.equal([
      { message: "MONGO_URL and REDIS_URL (with their passwords) from the local services' credentials", file: join(secrets(), "credentials.env") },
    ]);

    const explicit = withLocalState({ SERVICES_DIR: dir, MONGO_URL: "mongodb://db.example:27017/x" }, { vaultKey: false });
    expect([explicit.env.MONGO_URL, explicit.env.REDIS_URL]).to.deep.equal(["mongodb://db.example:27017/x", REDIS]);
    expect(explicit.notes.map((n) => n.message)).to.deep.equal(["REDIS_URL (with its password) from the local services' credentials"]);
  });

  it("without a credentials file leaves the defaults, and reads no file for variables the environment sets", () => {
    expect(loadConfig(withLocalState({ SERVICES_DIR: dir }, { vaultKey: false }).env).mongoUrl).to.equal("mongodb://127.0.0.1:27017/agent_sessions");
    mkdirSync(join(secrets(), "credentials.env"), { recursive: true });
    // A directory where the file should be would fail a read: none is attempted.
    expect(withLocalState({ SERVICES_DIR: dir, MONGO_URL: MONGO, REDIS_URL: REDIS, VAULT_ENCRYPTION_KEY: "x" }, { vaultKey: true }).notes).to.deep.equal([]);
  });

  it("makes the vault key once, 0600 in a 0700 directory, and every later start uses that one", () => {
    const first = withLocalState({ SERVICES_DIR: dir }, { vaultKey: true });
    expect(first.notes).to.deep.equal([{ message: "vault key made for the local services", file: keyFile() }]);
    expect(statSync(keyFile()).mode & 0o777).to.equal(0o600);
    expect(statSync(secrets()).mode & 0o777).to.equal(0o700);
    const key = readFileSync(keyFile(), "utf8").trim();
    expect(loadConfig(first.env).vaultKeys?.current.toString("base64")).to.equal(key);

    const second = withLocalState({ SERVICES_DIR: dir }, { vaultKey: true });
    expect(second.notes).to.deep.equal([{ message: "vault key of the local services", file: keyFile() }]);
    expect(second.env.VAULT_ENCRYPTION_KEY).to.equal(key);
    // An older key beside it, as a rotation has it.
    const older = Buffer.alloc(32, 7).toString("base64");
    expect(loadConfig({ ...second.env, VAULT_DECRYPTION_KEYS: older }).vaultKeys?.older.map((k) => k.toString("base64"))).to.deep.equal([older]);
  });

  it("makes no key in production, beside an explicit one, for a database the environment names, or for the CLI", () => {
    for (const env of [{ NODE_ENV: "production" }, { VAULT_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64") }, { MONGO_URL: MONGO }]) {
      const local = withLocalState({ SERVICES_DIR: dir, ...env }, { vaultKey: true });
      expect(local.env.VAULT_ENCRYPTION_KEY, JSON.stringify(env)).to.equal(env.VAULT_ENCRYPTION_KEY);
      expect(local.notes).to.deep.equal([]);
    }
    expect(withLocalState({ SERVICES_DIR: dir }, { vaultKey: false }).env.VAULT_ENCRYPTION_KEY).to.equal(undefined);
    expect(() => statSync(keyFile())).to.throw();
  });

  it("refuses a key file that does not hold a key, naming the file and not its content", () => {
    mkdirSync(secrets(), { mode: 0o700 });
    writeFileSync(keyFile(), "not-a-key-at-all\n", { mode: 0o600 });
    expect(() => withLocalState({ SERVICES_DIR: dir }, { vaultKey: true }))
      .to.throw(ConfigError, keyFile())
      .with.property("message")
      .that.does.not.include("not-a-key-at-all");
  });

  it("finds the state directory as scripts/services.sh does: SERVICES_DIR, else XDG_STATE_HOME, else ~/.local/state", () => {
    writeCredentials();
    const xdg = mkdtempSync(join(tmpdir(), "xdg-"));
    try {
      mkdirSync(join(xdg, "agent-sessions", "secrets"), { recursive: true });
      writeFileSync(join(xdg, "agent-sessions", "secrets", "credentials.env"), `REDIS_URL='redis://:x@127.0.0.1:1'\n`);
      expect(withLocalState({ XDG_STATE_HOME: xdg }, { vaultKey: false }).env.REDIS_URL).to.equal("redis://:x@127.0.0.1:1");
      expect(withLocalState({ HOME: join(dir, "home"), XDG_STATE_HOME: "" }, { vaultKey: false }).env.REDIS_URL).to.equal(undefined);
      expect(withLocalState({ SERVICES_DIR: dir, XDG_STATE_HOME: xdg }, { vaultKey: false }).env.REDIS_URL).to.equal(REDIS);
    } finally {
      rmSync(xdg, { recursive: true, force: true });
    }
  });
});
