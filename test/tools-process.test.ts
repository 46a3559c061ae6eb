/**
 * process through sessions: background processes started with terminal {background: true}, listed,
 * polled, logged, waited for, written to and killed; bad input; the limits (count, time, output); and
 * their end when the session is archived or deleted (through another process of the service) or on
 * another worker.
 */
import { existsSync } from "node:fs";
import { expect } from "chai";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, until } from "./support/sessions.js";
import { alive, answer, processesOf, toolCaller } from "./support/tool-calls.js";
import { allow, toolset } from "./tools-cases.js";

describe("process", () => {
  const root = `/tmp/agent-sessions-process-ws-${process.pid}`;
  let server: TestServer;
  let api: Client;
  const call = toolCaller(() => api);
  const newSession = async () => (await createSession(api, { agent: { tools: [toolset(allow)] } })).sessionId;
  const start = async (sessionId: string, command: string, extra: Record<string, unknown> = {}) =>
    answer(await call(sessionId, "terminal", { command, background: true, ...extra }));
  const act = async (sessionId: string, input: Record<string, unknown>) => answer(await call(sessionId, "process", input));

  before(async () => {
    server = await startServer({ WORKSPACE_ROOT: root });
    api = client(server.url, await server.newKey());
  });
  after(async () => server?.close());

  it("terminal {background: true} answers an id at once; poll gives the new output; write reaches the input; kill ends the group", async () => {
    const sessionId = await newSession();
    const started = await start(sessionId, 'echo ready; while read line; do echo "got $line"; done');
    expect(started).to.include({ status: "running" });
    expect(started.id).to.match(/^proc_[0-9a-z]+$/);
    await until(
      () => act(sessionId, { action: "poll", id: started.id }),
      (p) => p.output === "ready\n",
      15_000,
      "the first output",
    );
    expect(await act(sessionId, { action: "write", id: started.id, data: "one\n" })).to.deep.equal({ id: started.id, status: "running", bytes_written: 4 });
    await until(
      () => act(sessionId, { action: "poll", id: started.id }),
      (p) => p.output === "got one\n",
      15_000,
      "the answer to the input",
    );
    expect(await act(sessionId, { action: "poll", id: started.id })).to.include({ status: "running", output: "" });
    const killed = await act(sessionId, { action: "kill", id: started.id });
    expect(killed).to.include({ status: "exited", exit_code: null, signal: "SIGKILL", note: "killed with process kill" });
    expect(alive(started.pid)).to.equal(false);
    expect(await call(sessionId, "process", { action: "write", id: started.id, data: "late\n" })).to.deep.equal({ ok: false, text: "the process has exited" });
  });

  it("list shows the session's processes; log pages the kept output by lines; wait returns at the exit or its timeout", async () => {
    const sessionId = await newSession();
    const counted = await start(sessionId, "seq 1 500");
    const sleeper = await start(sessionId, "sleep 600");
    expect(await act(sessionId, { action: "wait", id: counted.id })).to.include({ status: "exited", exit_code: 0 });
    expect(await act(sessionId, { action: "wait", id: sleeper.id, timeout: 1 })).to.include({ status: "running", timed_out: true });
    const { processes } = await act(sessionId, { action: "list" });
    expect(processes.map((p: Record<string, unknown>) => [p.id, p.command, p.status])).to.deep.equal([
      [counted.id, "seq 1 500", "exited"],
      [sleeper.id, "sleep 600", "running"],
    ]);
    const last = await act(sessionId, { action: "log", id: counted.id });
    expect(last).to.include({ offset: 300, lines: 200, total_lines: 500 });
    expect(last.output.split("\n")[0]).to.equal("301");
    expect(await act(sessionId, { action: "log", id: counted.id, offset: 2, limit: 3 })).to.include({
      offset: 2,
      lines: 3,
      total_lines: 500,
      output: "3\n4\n5",
    });
    await act(sessionId, { action: "kill", id: sleeper.id });
  });

  it("bad input is a tool error naming the problem; another session's process is not found", async () => {
    const sessionId = await newSession();
    const mine = await start(sessionId, "sleep 600");
    const other = await newSession();
    const cases: [unknown, string][] = [
      [{}, "invalid input: action: is required"],
      [{ action: "bogus" }, "invalid input: action: must be one of: list, poll, log, wait, kill, write"],
      [{ action: "poll", id: "" }, "invalid input: id: must not be empty"],
      [{ action: "wait", id: mine.id, timeout: 1.5 }, "invalid input: timeout: must be integer"],
      [{ action: "write", id: mine.id, data: 5 }, "invalid input: data: must be string"],
      [{ action: "log", id: mine.id, limit: 0 }, "invalid input: limit: must be >= 1"],
      [{ action: "kill", id: mine.id, signal: "TERM" }, "invalid input: signal: is not allowed"],
      [{ action: "poll" }, "input.id is required for poll: the id terminal gave when it started the process"],
      [{ action: "write", id: mine.id }, "input.data is required for write: the text to send to the process's input"],
    ];
    for (const [input, text] of cases) expect(await call(sessionId, "process", input), JSON.stringify(input)).to.deep.equal({ ok: false, text });
    expect(await call(other, "process", { action: "kill", id: mine.id })).to.deep.equal({
      ok: false,
      text: `no background process ${mine.id} in this session (process list shows them)`,
    });
    expect(answer(await call(other, "process", { action: "list" }))).to.deep.equal({ processes: [] });
    expect(await act(sessionId, { action: "poll", id: mine.id })).to.include({ status: "running" });
    await act(sessionId, { action: "kill", id: mine.id });
  });

  it("at most 4 run at once in a session; one that ends makes room", async () => {
    const sessionId = await newSession();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await start(sessionId, "sleep 600")).id);
    expect(await call(sessionId, "terminal", { command: "sleep 600", background: true })).to.deep.equal({
      ok: false,
      text: "at most 4 background processes run at once in a session; wait for one to end or kill one (process list shows them)",
    });
    await act(sessionId, { action: "kill", id: ids[0] });
    ids[0] = (await start(sessionId, "sleep 600")).id;
    for (const id of ids) await act(sessionId, { action: "kill", id });
  });

  it("escape: a background process is killed with its group at its time limit", async () => {
    const sessionId = await newSession();
    const started = await start(sessionId, "sleep 600 & sleep 600", { timeout: 1 });
    const waited = await act(sessionId, { action: "wait", id: started.id });
    expect(waited).to.include({ status: "exited", signal: "SIGKILL", note: "killed at its 1 s time limit" });
    expect(alive(started.pid)).to.equal(false);
  });

  it("escape: a background process's runaway output is kept to its newest 64 KiB", async () => {
    const sessionId = await newSession();
    const started = await start(sessionId, "yes");
    await act(sessionId, { action: "wait", id: started.id, timeout: 1 });
    const polled = await act(sessionId, { action: "poll", id: started.id });
    expect(polled.output.length).to.be.at.most(64 * 1024);
    expect(polled.output_dropped_chars).to.be.above(0);
    const logged = await act(sessionId, { action: "log", id: started.id, limit: 1000 });
    expect(logged.lines).to.equal(1000);
    expect(logged.output_dropped_chars).to.be.above(0);
    await act(sessionId, { action: "kill", id: started.id });
  });

  describe("the end of a session's processes", () => {
    let apiOnly: TestServer;
    let viaApi: Client;
    before(async () => {
      // A process of the service without a worker: its deletions reach the worker through Redis.
      apiOnly = await startServer({ ROLE: "api", WORKSPACE_ROOT: root });
      const key = await server.newKey();
      viaApi = client(apiOnly.url, key);
      api = client(server.url, key);
    });
    after(async () => apiOnly?.close());

    async function running(sessionId: string) {
      const uid = Number((await call(sessionId, "terminal", { command: "id -u" })).text);
      const started = await start(sessionId, "(setsid sleep 600 &); sleep 600");
      // A background start answers at once; the processes follow.
      await until(
        async () => processesOf(uid),
        (pids) => pids.length >= 2,
        15_000,
        "the session's processes to start",
      );
      return { uid, started };
    }

    it("deleting the session kills every process of it, those that left their group too, and removes its workspace", async () => {
      const sessionId = await newSession();
      const { uid, started } = await running(sessionId);
      expect((await viaApi.delete(`/v1/sessions/${sessionId}`)).status).to.equal(200);
      await until(
        async () => processesOf(uid),
        (pids) => pids.length === 0,
        15_000,
        "the session's processes to end",
      );
      expect(alive(started.pid)).to.equal(false);
      await until(
        async () => existsSync(`${root}/${sessionId}`),
        (exists) => !exists,
        15_000,
        "the workspace to go",
      );
    });

    it("archiving the session kills its processes (it takes no more turns) and keeps its workspace", async () => {
      const sessionId = await newSession();
      const { uid } = await running(sessionId);
      expect((await viaApi.post(`/v1/sessions/${sessionId}/archive`, {})).status).to.equal(200);
      await until(
        async () => processesOf(uid),
        (pids) => pids.length === 0,
        15_000,
        "the session's processes to end",
      );
      expect(existsSync(`${root}/${sessionId}`)).to.equal(true);
    });
  });
});

describe("process on another worker", () => {
  const root = `/tmp/agent-sessions-process-ws-${process.pid}`;
  let first: TestServer | undefined;
  let second: TestServer;
  let api: Client;
  const call = toolCaller(() => api);

  after(async () => Promise.all([first?.close(), second?.close()]));

  it("a process is managed only from the worker that started it: another one says so, and a stopped worker's processes are killed", async () => {
    first = await startServer({ WORKSPACE_ROOT: root });
    const key = await first.newKey();
    api = client(first.url, key);
    const { sessionId } = await createSession(api, { agent: { tools: [toolset(allow)] } });
    const started = answer(await call(sessionId, "terminal", { command: "sleep 600", background: true }));
    second = await startServer({ WORKSPACE_ROOT: root });
    await first.close();
    first = undefined;
    expect(alive(started.pid)).to.equal(false);
    api = client(second.url, key);
    const result = await call(sessionId, "process", { action: "poll", id: started.id });
    expect(result).to.deep.equal({
      ok: false,
      text: `background process ${started.id} is not on the worker running this turn: a background process can be managed only from the worker that started it, which is another one or has since stopped (its processes were then killed); process list shows the ones here`,
    });
  });
});
