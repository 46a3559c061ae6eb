/**
 * The client as a user gets it: `npm pack` the workspace, install the tarball into a fresh folder (its
 * dependencies from npm's cache when there), type-check a TypeScript file against the installed
 * declarations, and run an ES module script against the real service that creates an agent and a
 * session, sends, and prints the final text.
 */
import { expect } from "chai";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { projectRoot } from "../src/paths.js";
import { startServer, type TestServer } from "./support/server.js";

const run = promisify(execFile);
// npm and tsc under the Node running the tests.
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` };

const SCRIPT = `import { createAgentSessionsClient } from "@agent-sessions/client";
const client = createAgentSessionsClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
const agent = await client.agents.create({ name: "Packed", modelName: "mock/echo", systemPrompt: "You help.", skills: [], tools: [] });
const session = await client.sessions.create({ agentId: agent.id, subjectId: "packed-user" });
const turn = await client.sessions.sendAndWait(session.id, "from a packed client");
console.log(JSON.stringify({ text: turn.text, stop: turn.stopReason.type, calls: turn.usage?.calls }));
`;

const TYPED = `import { createAgentSessionsClient, NotFoundError, type Event } from "@agent-sessions/client";
const client = createAgentSessionsClient({ baseUrl: "http://localhost:8080", apiKey: "k" });
export const texts = (e: Event): string => (e.type === "agent.message" ? e.payload.content.map((b) => b.text).join("") : "");
export const missing = (err: unknown): boolean => err instanceof NotFoundError;
export const agent = () => client.agents.create({ name: "n", modelName: "mock/echo", systemPrompt: "s", skills: [], tools: [] });
`;

describe("the packed client, installed in a fresh folder", function () {
  this.timeout(120_000);
  let server: TestServer;
  let dir: string;
  before(async () => {
    server = await startServer();
    dir = await mkdtemp(join(tmpdir(), "agent-sessions-client-pack-"));
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("packs with its README and declarations, installs, type-checks, and runs a conversation against the service", async () => {
    await run("npm", ["pack", "--silent", "--pack-destination", dir, "-w", "clients/typescript"], { cwd: projectRoot, env });
    const tarball = (await readdir(dir)).find((f) => f.endsWith(".tgz"))!;
    const { stdout: listing } = await run("tar", ["-tzf", join(dir, tarball)]);
    expect(listing.split("\n")).to.include.members(["package/README.md", "package/dist/index.js", "package/dist/index.d.ts", "package/package.json"]);

    const app = join(dir, "app");
    await mkdir(app);
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "packed-app", private: true, type: "module" }));
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", join(dir, tarball)], { cwd: app, env });

    await writeFile(join(app, "typed.ts"), TYPED);
    const tsc = join(projectRoot, "node_modules", "typescript", "bin", "tsc");
    const flags = ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--lib", "es2023,dom"];
    await run(process.execPath, [tsc, ...flags, "typed.ts"], { cwd: app, env });

    await writeFile(join(app, "main.mjs"), SCRIPT);
    const { stdout } = await run(process.execPath, ["main.mjs"], { cwd: app, env: { ...env, BASE: server.url, KEY: await server.newKey() } });
    expect(JSON.parse(stdout)).to.deep.equal({ text: "echo: from a packed client", stop: "end_turn", calls: 1 });
  });
});
