/**
 * The command line's API face: `login`, `agents list`, `sessions list | send | approve | deny | tail`,
 * run as child processes against the real test server with a temporary config home. The key is kept
 * only in the profile file (mode 0600) and never shows in any output (the support's scan of it).
 */
import { expect } from "chai";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { hashKey } from "../src/accounts/store/organizations.js";
import { cli, cliRunning } from "./support/cli.js";
import { secret } from "./support/secrets.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, history, sendText, settle, until } from "./support/sessions.js";
import { ask, lookup, sessionSteps } from "./tools-cases.js";

/** A port nothing listens on: one the system just gave and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("CLI: API commands", () => {
  let server: TestServer;
  let key: string;
  let api: Client;
  let home: string;
  /** The environment of a user's shell: a config home of its own, none of the API variables set. */
  const shell = (extra: Record<string, string | undefined> = {}) => ({
    XDG_CONFIG_HOME: home,
    AGENT_SESSIONS_API_KEY: undefined,
    AGENT_SESSIONS_URL: undefined,
    AGENT_SESSIONS_PROFILE: undefined,
    ...extra,
  });
  const run = (args: string[], extra: Record<string, string | undefined> = {}, input = "") => cli(args, shell(extra), input);
  const configFile = () => join(home, "agent-sessions", "config.json");
  const lines = (out: string) => out.trimEnd().split("\n");

  before(async () => {
    server = await startServer();
    key = secret(await server.newKey());
    api = client(server.url, key);
    home = await mkdtemp(join(tmpdir(), "agent-sessions-cli-"));
    const login = await run(["login", "--url", server.url], {}, `${key}\n`);
    expect(login.code, login.stderr).to.equal(0);
  });
  after(async () => {
    await server.close();
    await rm(home, { recursive: true, force: true });
  });

  it("login checks the key before saving a profile readable by its owner only; --profile keeps several; logout removes one", async () => {
    expect(JSON.parse(await readFile(configFile(), "utf8"))).to.deep.equal({ profiles: { default: { url: server.url, apiKey: key } } });
    expect((await stat(configFile())).mode & 0o777).to.equal(0o600);

    const other = secret(await server.newKey());
    const made = await run(["--profile", "other", "login", "--url", `${server.url}/`, "--json"], {}, `${other}\n`);
    expect(made.code, made.stderr).to.equal(0);
    expect(JSON.parse(made.stdout)).to.deep.equal({ profile: "other", url: server.url, keyId: `key_${hashKey(other).slice(0, 32)}`, path: configFile() });
    const text = await run(["login", "--url", server.url, "--profile", "third"], {}, other);
    expect(text.stdout).to.equal(`logged in to ${server.url} with key_${hashKey(other).slice(0, 32)} as profile "third" (saved in ${configFile()})\n`);
    expect(Object.keys(JSON.parse(await readFile(configFile(), "utf8")).profiles)).to.deep.equal(["default", "other", "third"]);
    expect((await run(["--profile", "third", "logout"])).stdout).to.equal(`removed profile "third" from ${configFile()}\n`);
    expect((await run(["--profile", "third", "logout"])).stdout).to.equal(`no profile "third" in ${configFile()}\n`);

    const refused = await run(["--profile", "bad", "login", "--url", server.url], {}, "ask_not-a-valid-key\n");
    expect(refused).to.include({ code: 1, stdout: "" });
    expect(refused.stderr).to.match(/^agent-sessions: .+ \(unauthorized, HTTP 401\); the key was refused: agent-sessions login saves another\n$/);
    const closed = await closedPort();
    const down = await run(["--profile", "bad", "login", "--url", `http://127.0.0.1:${closed}`], {}, key);
    expect(down).to.include({ code: 1, stderr: `agent-sessions: cannot reach the API at http://127.0.0.1:${closed}: ECONNREFUSED\n` });
    const none = await run(["--profile", "bad", "login", "--url", server.url]);
    expect(none.stderr).to.match(/^agent-sessions: no API key given: pipe it on stdin/);
    expect(JSON.parse(await readFile(configFile(), "utf8")).profiles).to.not.have.property("bad");
  });

  it("agents list and sessions list --status --agent: tables, or --json; the environment's key and URL override the profile", async () => {
    const { agentId, sessionId, subjectId } = await createSession(api, { agent: { name: "Listed bot" } });
    await sendText(api, sessionId, "hello");
    await settle(api, sessionId, 1);
    // The list reads the record, whose status and title follow the log.
    await until(
      () => api.get(`/v1/sessions/${sessionId}`),
      (r) => r.body.status === "idle" && r.body.title === "hello",
      15_000,
      "the record to show the idle, titled session",
    );

    const agents = await run(["agents", "list", "--json", "--limit", "100"]);
    expect(agents.code, agents.stderr).to.equal(0);
    expect((JSON.parse(agents.stdout) as { id: string; name: string }[]).find((a) => a.id === agentId)?.name).to.equal("Listed bot");
    const table = lines((await run(["agents", "list", "--limit", "100"])).stdout);
    expect(table[0]).to.match(/^ID\s+NAME\s+MODEL\s+VERSION\s+STATUS\s+UPDATED$/);
    expect(table.find((l) => l.startsWith(agentId))).to.match(new RegExp(`^${agentId}\\s+Listed bot\\s+mock/echo\\s+1\\s+active\\s+\\S+Z$`));

    const listed = await run(["sessions", "list", "--agent", agentId, "--status", "idle", "--json"]);
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((s) => s.id)).to.deep.equal([sessionId]);
    const rows = lines((await run(["sessions", "list", "--agent", agentId])).stdout);
    expect(rows[0]).to.match(/^ID\s+STATUS\s+AGENT\s+SUBJECT\s+TITLE\s+UPDATED$/);
    expect(rows[1]).to.match(new RegExp(`^${sessionId}\\s+idle\\s+${agentId}\\s+${subjectId}\\s+hello\\s+\\S+Z$`));
    expect((await run(["sessions", "list", "--agent", agentId, "--status", "archived"])).stdout).to.equal("no sessions\n");
    // Coloured where colour is asked for (a terminal, or FORCE_COLOR), the columns still aligned.
    const coloured = (await run(["sessions", "list", "--agent", agentId], { FORCE_COLOR: "1" })).stdout;
    expect(coloured).to.include("\x1b[");
    expect(stripVTControlCharacters(coloured)).to.equal(rows.join("\n") + "\n");

    // Without a profile: the key and URL from the environment; another organization's key sees none of it.
    const bare = { XDG_CONFIG_HOME: join(home, "nowhere"), AGENT_SESSIONS_URL: server.url };
    expect((await run(["sessions", "list", "--agent", agentId, "--json"], { ...bare, AGENT_SESSIONS_API_KEY: key })).stdout).to.equal(listed.stdout);
    const stranger = secret(await server.newKey());
    expect((await run(["sessions", "list", "--agent", agentId], { ...bare, AGENT_SESSIONS_API_KEY: stranger })).stdout).to.equal("no sessions\n");
  });

  it("sessions tail renders the model's text as it streams, then the turn's end; send posts a message; --json gives every frame", async () => {
    const { sessionId } = await createSession(api);
    const text = cliRunning(["sessions", "tail", sessionId], shell());
    const json = cliRunning(["sessions", "tail", sessionId, "--json"], shell());
    try {
      // A first turn, shown by both: from then on they are connected, and the second turn's deltas reach them live.
      await sendText(api, sessionId, "first");
      const firstTurn = (await text.printed((out) => out.includes("session.status_idle"), "the first turn's end")).length;
      await json.printed((out) => out.includes("session.status_idle"), "the first turn's end");

      const sent = await run(["sessions", "send", sessionId, "second", "words"]);
      expect(sent.code, sent.stderr).to.equal(0);
      expect(sent.stdout).to.match(/^user\.message evt_\S+ (received|processed)\n$/);
      const ends = (out: string) => (out.match(/^\{"id":"[^"]+","type":"session\.status_idle"/gm) ?? []).length;
      const frames = (await json.printed((out) => ends(out) === 2, "the second turn's end"))
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as { sequence: number | null; id: string; type: string; payload: { content?: { text: string }[] } });
      const deltas = frames.filter((f) => f.sequence === null && f.type === "agent.message").map((f) => f.payload.content![0]!.text);
      expect(deltas.length).to.be.greaterThan(1);
      expect(deltas.join("")).to.contain("echo: second words");
      const durable = frames.filter((f) => f.sequence !== null).map((f) => f.id);
      expect(durable).to.deep.equal((await history(api, sessionId)).slice(0, durable.length).map((e) => e.id));

      const out = await text.printed((o) => (o.match(/session\.status_idle/g) ?? []).length === 2, "the second turn's end");
      const second = out.slice(firstTurn);
      expect(second, out).to.include("agent ▸ echo: second words\n");
      expect(second, out).to.match(/^#\d+ +\S+Z +user\.message +\w+ +"second words"\n/m);
      // A message whose every delta was shown is not printed again; no colour reaches a pipe.
      expect(second, out).to.not.include(" agent.message ");
      expect(out).to.not.include("\x1b[");
    } finally {
      await text.stop();
      await json.stop();
    }
  });

  it("sessions send --when-idle queues a message while a turn runs; it runs as a turn of its own", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "/slow 600000 slow one");
    await until(
      () => history(api, sessionId),
      (es) => es.some((e) => e.type === "session.status_running"),
      15_000,
      "the slow turn to run",
    );
    const queued = await run(["sessions", "send", sessionId, "--when-idle", "--json", "-"], {}, "after the slow one");
    expect(queued.code, queued.stderr).to.equal(0);
    const [event] = JSON.parse(queued.stdout);
    expect(event).to.deep.include({ type: "user.message", status: "queued" });
    expect(event.payload.content).to.deep.equal([{ type: "text", text: "after the slow one" }]);
    await api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.interrupt" }] });
    const texts = (await settle(api, sessionId, 2)).filter((e) => e.type === "agent.message").map((e) => e.payload.content[0].text);
    expect(texts).to.deep.equal(["echo: after the slow one"]);
  });

  it("sessions approve and deny (with a reason) answer a pending approval request; list --waiting shows who waits", async () => {
    const { paused } = sessionSteps(() => api);
    const { sessionId } = await createSession(api, { agent: { tools: [lookup({ permissionPolicy: ask })] } });
    await sendText(api, sessionId, "/tool lookup {}");
    const request = (await paused(sessionId)).events.find((e) => e.type === "agent.approval_request");
    const approved = await run(["sessions", "approve", sessionId, request.id, "--scope", "session", "--json"]);
    expect(approved.code, approved.stderr).to.equal(0);
    expect(JSON.parse(approved.stdout)[0].payload).to.deep.equal({
      type: "user.approval_response",
      approval_id: request.id,
      result: "allow",
      scope: "session",
    });
    expect((await paused(sessionId, 2)).events.some((e) => e.type === "agent.custom_tool_use")).to.equal(true);

    const other = await createSession(api, { agent: { tools: [lookup({ permissionPolicy: ask })] } });
    await sendText(api, other.sessionId, "/tool lookup {}");
    const asked = (await paused(other.sessionId)).events.find((e) => e.type === "agent.approval_request");
    // The list reads the records, whose status follows the log: wait for it through the API, then ask the CLI.
    const waitingIds = () => api.get("/v1/sessions?waitingOnHuman=true&limit=100").then((r) => (r.body.data as { id: string }[]).map((s) => s.id));
    await until(waitingIds, (ids) => ids.includes(sessionId) && ids.includes(other.sessionId), 15_000, "both sessions to wait");
    const waiting = await run(["sessions", "list", "--waiting", "--json", "--limit", "100"]);
    expect((JSON.parse(waiting.stdout) as { id: string }[]).map((s) => s.id)).to.include.members([sessionId, other.sessionId]);
    const denied = await run(["sessions", "deny", other.sessionId, asked.id, "--reason", "not on production"]);
    expect(denied.stdout).to.match(/^user\.approval_response evt_\S+ \w+\n$/);
    const events = await settle(api, other.sessionId, 2);
    const result = events.find((e) => e.type === "agent.tool_result").payload;
    expect(result).to.deep.include({ tool_use_id: asked.payload.tool_use_id, is_error: true });
    expect(result.content[0].text).to.include("not on production");
    await until(waitingIds, (ids) => !ids.includes(other.sessionId), 15_000, "the denied session to stop waiting");
    const after = await run(["sessions", "list", "--waiting", "--json", "--limit", "100"]);
    expect((JSON.parse(after.stdout) as { id: string }[]).map((s) => s.id)).to.not.include(other.sessionId);
  });

  it("failures are one line with the API's code and status, exit 1; no key or a broken profile file says what to do; usage exits 2", async () => {
    const unknown = await run(["sessions", "send", "ses_unknown", "hi"]);
    expect(unknown).to.include({ code: 1, stdout: "" });
    expect(unknown.stderr).to.match(/^agent-sessions: .+ \(not_found, HTTP 404\)\n$/);

    const tail = await run(["sessions", "tail", "ses_unknown"]);
    expect(tail).to.include({ code: 1, stdout: "" });
    expect(tail.stderr).to.match(/^agent-sessions: .+ \(not_found, HTTP 404\)\n$/);

    const empty = join(home, "empty");
    const noKey = await run(["agents", "list"], { XDG_CONFIG_HOME: empty });
    expect(noKey).to.include({
      code: 1,
      stderr: `agent-sessions: no API key: no profile "default" in ${empty}/agent-sessions/config.json and AGENT_SESSIONS_API_KEY is not set (agent-sessions login saves one)\n`,
    });
    expect((await run(["--profile", "nope", "agents", "list"])).stderr).to.include("(agent-sessions login --profile nope saves one)");
    const broken = join(home, "broken");
    await mkdir(join(broken, "agent-sessions"), { recursive: true });
    await writeFile(join(broken, "agent-sessions", "config.json"), "{");
    expect((await run(["agents", "list"], { XDG_CONFIG_HOME: broken })).stderr).to.equal(
      `agent-sessions: ${broken}/agent-sessions/config.json is not JSON; fix or remove it (agent-sessions login writes it again)\n`,
    );

    for (const args of [
      ["sessions", "list", "--status", "waiting_on_human"],
      ["sessions", "list", "--status", "idle", "--waiting"],
      ["sessions", "send", "ses_x"],
      ["sessions", "approve", "ses_x"],
      ["sessions", "tail", "ses_x", "--from", "0"],
      ["agents", "list", "--limit", "101"],
    ]) {
      const usage = await run(args);
      expect(usage.code, args.join(" ")).to.equal(2);
      expect(usage.stderr, args.join(" "))
        .to.match(/^error: /)
        .and.include(`Usage: agent-sessions ${args[0]} ${args[1]}`);
    }
  });
});
