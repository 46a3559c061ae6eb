/**
 * An agent's terminal reaches nothing that is not its own: not the stores, not the service's ports, not
 * the cloud metadata address, not a private network, not another session's processes; and a public host
 * answers, through the egress proxy. The hosts are real, in network namespaces the test makes.
 */
import { networkInterfaces } from "node:os";
import { expect } from "chai";
import { isolationAvailable } from "../src/agent-tools/sandbox/isolation-probe.js";
import { env } from "./support/hooks.js";
import { startTestHost, type TestHost } from "./support/netns-hosts.js";
import { client, otherDeployment, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, until } from "./support/sessions.js";
import { alive, answer, processesOf, toolCaller } from "./support/tool-calls.js";
import { allow, toolset } from "./tools-cases.js";

const portOf = (url: string) => new URL(url).port;
/** A direct TCP connection from the sandbox (bash's /dev/tcp), which says whether it was made. */
const tcp = (host: string, port: string) =>
  `timeout 3 bash -c 'exec 3<>/dev/tcp/${host}/${port}' 2>/dev/null && echo "reached ${host}:${port}" || echo "no way to ${host}:${port}"`;
/**
 * A request through the egress proxy ($HTTP_PROXY, for loopback too: NO_PROXY sends that to the sandbox's
 * own): the proxy's status code, for a forwarded request or (`tunnel`) for its CONNECT.
 */
const viaProxy = (url: string, tunnel = false) =>
  `curl -s -m 5 --noproxy '' ${tunnel ? "-p " : ""}-o /dev/null -w '%{${tunnel ? "http_connect" : "http_code"}} ${url}\\n' ${url} || true`;
/** This machine's first non-loopback IPv4 address: where services listening on every address answer too. */
const machineAddress = () =>
  Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal)?.address;

describe("sandbox: the network of an agent's tools", function () {
  const root = `/tmp/agent-sessions-netns-ws-${process.pid}`;
  let server: TestServer;
  let api: Client;
  let privateHost: TestHost;
  let publicHost: TestHost;
  const call = toolCaller(() => api);
  const newSession = async (on: () => Client = () => api) => (await createSession(on(), { agent: { tools: [toolset(allow)] } })).sessionId;
  const run = async (sessionId: string, command: string) => (await call(sessionId, "terminal", { command }, 30_000)).text;

  before(async function () {
    if (!isolationAvailable()) this.skip();
    this.timeout(60_000);
    privateHost = await startTestHost("pr", "10.231.0.1", "10.231.0.2");
    // 11.0.0.0/8 is public unicast: what the sandbox's policy lets through, here one hop away.
    publicHost = await startTestHost("pu", "11.231.0.1", "11.231.0.2");
    server = await startServer({ WORKSPACE_ROOT: root });
    api = client(server.url, await server.newKey());
  });
  after(async () => {
    await server?.close();
    privateHost?.close();
    publicHost?.close();
  });

  it("TCP to the Redis and MongoDB ports fails, directly and through the proxy", async () => {
    const [redis, mongo] = [portOf(env.redisUrl) || "6379", portOf(env.mongoUrl) || "27017"];
    const text = await run(
      await newSession(),
      [tcp("127.0.0.1", redis), tcp("127.0.0.1", mongo), viaProxy(`http://127.0.0.1:${redis}/`), viaProxy(`http://127.0.0.1:${mongo}/`, true)].join("; "),
    );
    expect(text).to.equal(`no way to 127.0.0.1:${redis}\nno way to 127.0.0.1:${mongo}\n403 http://127.0.0.1:${redis}/\n403 http://127.0.0.1:${mongo}/\n`);
  });

  it("TCP to the service's HTTP and metrics ports fails, on loopback and on the machine's own address", async () => {
    const [http, metrics] = [portOf(server.url), portOf(server.metricsUrl)];
    const own = machineAddress();
    const commands = [
      tcp("127.0.0.1", http),
      tcp("127.0.0.1", metrics),
      viaProxy(`http://127.0.0.1:${http}/v1/agents`),
      ...(own ? [tcp(own, http), viaProxy(`http://${own}:${metrics}/metrics`)] : []),
    ];
    const expected = [
      `no way to 127.0.0.1:${http}`,
      `no way to 127.0.0.1:${metrics}`,
      `403 http://127.0.0.1:${http}/v1/agents`,
      ...(own ? [`no way to ${own}:${http}`, `403 http://${own}:${metrics}/metrics`] : []),
    ];
    expect(await run(await newSession(), commands.join("; "))).to.equal(`${expected.join("\n")}\n`);
  });

  it("the cloud metadata address and a host of a private network are refused, saying why", async () => {
    const text = await run(
      await newSession(),
      [
        tcp("169.254.169.254", "80"),
        tcp(privateHost.address, "80"),
        "curl -sS -m 5 http://169.254.169.254/latest/meta-data/",
        "echo",
        `curl -sS -m 5 http://${privateHost.address}/`,
      ].join("; "),
    );
    expect(text).to.equal(
      `no way to 169.254.169.254:80\nno way to ${privateHost.address}:80\nrefused: 169.254.169.254 is a link-local address (cloud metadata service)\nrefused: ${privateHost.address} is a private address`,
    );
  });

  it("a host on a public address answers through the proxy, forwarded and tunnelled; not directly", async () => {
    const url = `http://${publicHost.address}/`;
    const text = await run(await newSession(), [tcp(publicHost.address, "80"), `curl -sS -m 5 ${url}`, "echo", `curl -sS -m 5 -p ${url}`].join("; "));
    expect(text).to.equal(`no way to ${publicHost.address}:80\nhello from pu\nhello from pu`);
  });

  it("an operator's allowed network opens to tools; the machine itself never does", async () => {
    const opened = await startServer({
      WORKSPACE_ROOT: root,
      OUTBOUND_ALLOWED_NETWORKS: `127.0.0.0/8,10.231.0.0/16`,
      REDIS_KEY_PREFIX: otherDeployment("netns-opened"),
    });
    try {
      const theirs = client(opened.url, await opened.newKey());
      const command = [`curl -sS -m 5 http://${privateHost.address}/`, "echo", `curl -sS -m 5 --noproxy '' http://127.0.0.1:${portOf(opened.url)}/`].join("; ");
      const { text } = await toolCaller(() => theirs)(await newSession(() => theirs), "terminal", { command }, 30_000);
      expect(text).to.equal(`hello from pr\nrefused: 127.0.0.1 is a loopback address`);
    } finally {
      await opened.close();
    }
  });

  it("a server the session runs in the background answers its later commands on loopback, and no other session's", async () => {
    const [mine, theirs] = [await newSession(), await newSession()];
    const started = answer(await call(mine, "terminal", { command: "python3 -m http.server 8765 --bind 127.0.0.1", background: true }));
    const poll = `for i in $(seq 100); do curl -s -o /dev/null -w '%{http_code}\\n' http://127.0.0.1:8765/ && break; sleep 0.1; done | tail -n 1`;
    expect(await run(mine, poll)).to.equal("200\n");
    // The session's one bridge serves every command of it, the background one's included.
    expect(await run(mine, `echo $HTTP_PROXY; curl -sS -m 5 http://${publicHost.address}/`)).to.equal(`http://127.0.0.1:3128\nhello from pu`);
    expect(await run(theirs, tcp("127.0.0.1", "8765"))).to.equal("no way to 127.0.0.1:8765\n");
    await call(mine, "process", { action: "kill", id: started.id });
    expect(await run(mine, tcp("127.0.0.1", "8765")), "gone with the process").to.equal("no way to 127.0.0.1:8765\n");
  });

  it("the session's bridge outlives what its commands kill, and ends with the session", async () => {
    const sessionId = await newSession();
    const uid = Number(await run(sessionId, "id -u"));
    const bridge = uid + 1_000_000_000;
    expect(processesOf(bridge), "the bridge runs as a uid of its own").to.have.length.of.at.least(1);
    await run(sessionId, "pkill -9 socat; kill -9 -1; true");
    expect(await run(sessionId, `curl -sS -m 5 http://${publicHost.address}/`)).to.equal("hello from pu");
    expect((await api.delete(`/v1/sessions/${sessionId}`)).status).to.equal(200);
    await until(
      async () => processesOf(bridge),
      (pids) => pids.length === 0,
      15_000,
      "the session's bridge to end",
    );
  });

  it("another session's processes can be neither seen nor signalled", async () => {
    const [mine, theirs] = [await newSession(), await newSession()];
    const started = answer(await call(theirs, "terminal", { command: "sleep 600", background: true }));
    const seen = await run(mine, `pgrep -c -x sleep; kill -9 ${started.pid} 2>&1; pkill -9 sleep; echo done`);
    expect(seen).to.equal("0\n/bin/sh: 1: kill: No such process\n\ndone\n");
    expect(alive(started.pid), "their process lives on").to.equal(true);
    expect(answer(await call(theirs, "process", { action: "poll", id: started.id }))).to.include({ status: "running" });
    await call(theirs, "process", { action: "kill", id: started.id });
  });

  it("a setsid child does not outlive its call", async () => {
    const sessionId = await newSession();
    const uid = Number(await run(sessionId, "id -u"));
    expect(await run(sessionId, "(setsid sleep 600 &); sleep 600 & echo started")).to.equal("started\n");
    expect(processesOf(uid)).to.deep.equal([]);
  });
});
