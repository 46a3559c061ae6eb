/** The commands as a newcomer and CI run them: keys:create, config validation at start, SIGTERM. */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { expect } from "chai";
import { projectRoot } from "../src/paths.js";
import { env } from "./support/hooks.js";
import { agentBody, client, startServer, type TestServer } from "./support/server.js";

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a command in the project root with changed environment (undefined removes a variable) and collects its output. */
function run(
  command: string,
  args: string[],
  envChanges: Record<string, string | undefined>,
  onStart?: (child: ReturnType<typeof spawn>) => void,
): Promise<Exit> {
  const childEnv = Object.fromEntries(Object.entries({ ...process.env, ...envChanges }).filter(([, v]) => v !== undefined));
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: projectRoot, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    onStart?.(child);
  });
}

const mainJs = join(projectRoot, "dist", "src", "main.js");

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe("commands and process lifecycle", () => {
  describe("npm run -s keys:create -- --org <name>", () => {
    let server: TestServer;
    before(async () => {
      server = await startServer();
    });
    after(async () => server.close());

    const keysCreate = (org: string) => run("npm", ["run", "-s", "keys:create", "--", "--org", org], { MONGO_URL: env.mongoUrl });

    it("prints only the key, and the key works", async () => {
      const out = await keysCreate(`cli-${process.pid}-${Date.now()}`);
      expect(out.code, out.stderr).to.equal(0);
      expect(out.stdout).to.match(/^ask_[A-Za-z0-9_-]{43}\n$/);
      const res = await client(server.url, out.stdout.trim()).post("/v1/agents", agentBody());
      expect(res.status).to.equal(201);
    });

    it("run twice for one organization gives two different keys of that same organization", async () => {
      const org = `cli-twice-${process.pid}-${Date.now()}`;
      const [first, second] = [await keysCreate(org), await keysCreate(org)];
      expect(first.code, first.stderr).to.equal(0);
      expect(second.code, second.stderr).to.equal(0);
      const [k1, k2] = [first.stdout.trim(), second.stdout.trim()];
      expect(k1).to.not.equal(k2);

      const created = await client(server.url, k1).post("/v1/agents", agentBody({ name: "Shared" }));
      expect(created.status).to.equal(201);
      const seen = await client(server.url, k2).get(`/v1/agents/${created.body.id}`);
      expect(seen.status).to.equal(200);
      expect(seen.body.name).to.equal("Shared");
    });

    it("without --org it exits non-zero with the usage on stderr and nothing on stdout", async () => {
      const out = await run("npm", ["run", "-s", "keys:create"], { MONGO_URL: env.mongoUrl });
      expect(out.code).to.not.equal(0);
      expect(out.stdout).to.equal("");
      expect(out.stderr).to.include("required option '--org <name>' not specified").and.include("Usage: agent-sessions ops keys create");
    });
  });

  describe("npm test without MONGO_URL and REDIS_URL both set", () => {
    it("stops before any test and says to set both or neither", async () => {
      const mocha = join(projectRoot, "node_modules", "mocha", "bin", "mocha.js");
      const out = await run("node", [mocha], { MONGO_URL: env.mongoUrl, REDIS_URL: undefined });
      expect(out.code).to.not.equal(0);
      expect(out.stderr).to.include("Set both MONGO_URL and REDIS_URL, or neither");
      expect(out.stdout).to.not.include("passing");
    });
  });

  describe("configuration is validated at start", () => {
    const cases: [string, Record<string, string>][] = [
      ["PORT", { PORT: "abc" }],
      ["PORT", { PORT: "70000" }],
      ["ROLE", { ROLE: "bogus" }],
      ["MONGO_URL", { MONGO_URL: "notaurl" }],
      ["MONGO_URL", { MONGO_URL: "http://127.0.0.1:27017/db" }],
      ["REDIS_URL", { REDIS_URL: "notaurl" }],
      ["LOG_LEVEL", { LOG_LEVEL: "loud" }],
      ["SHUTDOWN_TIMEOUT_MS", { SHUTDOWN_TIMEOUT_MS: "-1" }],
    ];
    for (const [variable, bad] of cases) {
      it(`${Object.entries(bad)[0]!.join("=")} exits non-zero naming ${variable}`, async () => {
        const out = await run("node", [mainJs], { MONGO_URL: env.mongoUrl, REDIS_URL: env.redisUrl, REDIS_KEY_PREFIX: env.redisKeyPrefix, PORT: "0", ...bad });
        expect(out.code).to.not.equal(0);
        expect(out.stderr).to.include(variable);
        expect(out.stderr).to.match(/^configuration error: /);
      });
    }
  });

  describe("graceful shutdown", () => {
    it("npm start's process answers /healthz, then exits 0 on SIGTERM", async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      let healthy = false;
      const out = await run(
        "node",
        [mainJs],
        { MONGO_URL: env.mongoUrl, REDIS_URL: env.redisUrl, REDIS_KEY_PREFIX: env.redisKeyPrefix, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn" },
        (child) => {
          void (async () => {
            for (let i = 0; i < 200 && child.exitCode === null; i++) {
              try {
                if ((await fetch(`${base}/healthz`)).status === 200) {
                  healthy = true;
                  break;
                }
              } catch {
                /* not listening yet */
              }
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
            child.kill("SIGTERM");
          })();
        },
      );
      expect(healthy, out.stderr + out.stdout).to.equal(true);
      expect(out.signal).to.equal(null);
      expect(out.code, out.stderr + out.stdout).to.equal(0);
    });
  });
});
