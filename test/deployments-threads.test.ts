import { expect } from "chai";
import { deploymentsClient, readyDeployment } from "./support/deployments.js";
import { expectError, expectValidation } from "./support/expect.js";
import { agentTexts, until, userMessage } from "./support/sessions.js";
import { startServer, type Client, type TestServer } from "./support/server.js";
import { openSse } from "./support/sse.js";

describe("deployments: threads, messages and the event stream", () => {
  let server: TestServer;
  let api: Client;
  let key: string;

  before(async () => {
    server = await startServer();
    ({ api, key } = await deploymentsClient(server));
  });
  after(async () => server.close());

  const threadEvents = async (d: any, thread: string): Promise<any[]> =>
    (await api.get(`/v1/deployments/${d.deployment_id}/threads/${thread}/events?limit=100`)).body.data;

  it("answers a message in the default thread, seen on the deployment's SSE stream, resumable with Last-Event-ID", async () => {
    const d = await readyDeployment(api);
    const auth = { authorization: `Bearer ${key}` };
    const stream = await openSse(d.events.url, key, auth);
    expect(stream.status).to.equal(200);
    const sent = await api.post(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events`, { events: [userMessage("hello there")] });
    expect(sent.status).to.equal(202);
    expect(sent.body.data[0]).to.include({ type: "user.message" });
    await stream.waitFor((frames) => frames.some((f) => f.event === "session.status_idle"));
    const answer = stream.frames.find((f) => f.event === "agent.message" && f.data.payload.delta === false);
    expect(answer, "the agent's answer on the stream").to.be.an("object");
    expect(agentTexts(await threadEvents(d, d.thread_id))).to.have.length(1);
    const lastId = stream.frames.filter((f) => f.id).at(-1)!.id!;
    stream.close();

    await api.post(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events`, { events: [userMessage("again")] });
    await until(
      () => threadEvents(d, d.thread_id),
      (events) => events.filter((e) => e.type === "session.status_idle").length >= 2,
      15_000,
      "the second turn",
    );
    const resumed = await openSse(d.events.url, key, { ...auth, "last-event-id": lastId });
    await resumed.waitFor((frames) => frames.some((f) => f.event === "session.status_idle"));
    const durable = resumed.frames.filter((f) => f.data.sequence !== undefined).map((f) => f.data.sequence as number);
    const before = stream.frames.filter((f) => f.data.sequence !== undefined).map((f) => f.data.sequence as number);
    expect(Math.min(...durable)).to.equal(Math.max(...before) + 1, "resumed right after the last frame seen");
    resumed.close();
  });

  it("starts more threads, streams one with thread_id, and keeps threads to their deployment", async () => {
    const d = await readyDeployment(api);
    const other = await readyDeployment(api, { customer_id: "cus_2" });
    const thread = await api.post(`/v1/deployments/${d.deployment_id}/threads`, { title: "Billing question", metadata: { ticket: "42" } });
    expect(thread.status).to.equal(201);
    expect(thread.body).to.include({ deployment_id: d.deployment_id, title: "Billing question", status: "idle" });
    const t = thread.body.thread_id;
    expect((await api.get(`/v1/deployments/${d.deployment_id}/threads/${t}`)).body.thread_id).to.equal(t);
    const stream = await openSse(`${d.events.url}?thread_id=${t}`, key, { authorization: `Bearer ${key}` });
    await api.post(`/v1/deployments/${d.deployment_id}/threads/${t}/events`, { events: [userMessage("invoice?")] });
    await stream.waitFor((frames) => frames.some((f) => f.event === "session.status_idle"));
    expect(stream.frames.every((f) => f.data.sessionId === undefined || f.data.sessionId === t)).to.equal(true);
    stream.close();
    expectError(await api.get(`/v1/deployments/${other.deployment_id}/threads/${t}`), 404, "not_found");
    expectError(await api.post(`/v1/deployments/${other.deployment_id}/threads/${t}/events`, { events: [userMessage("x")] }), 404, "not_found");
    expectError(await api.get(`/v1/deployments/${other.deployment_id}/threads/${t}/events`), 404, "not_found");
    const { api: stranger } = await deploymentsClient(server);
    expectError(await stranger.get(`/v1/deployments/${d.deployment_id}/threads/${t}`), 404, "not_found");
  });

  it("refuses bad events and bad thread bodies as the core interface does", async () => {
    const d = await readyDeployment(api);
    expectValidation(await api.post(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events`, { events: [] }));
    expectValidation(await api.post(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events`, { events: [{ type: "user.dance" }] }));
    expectValidation(await api.post(`/v1/deployments/${d.deployment_id}/threads`, { title: "" }), "title: must not be empty");
    expectValidation(await api.get(`${new URL(d.events.url).pathname}?after=-1`));
  });

  it("uploads files into the workspace, bounded, never outside it", async () => {
    const d = await readyDeployment(api);
    // The path is one parameter: its slashes percent-encoded, as the document's `{path}` says (raw slashes are accepted too).
    const put = (path: string, body: string) =>
      api.put(`/v1/deployments/${d.deployment_id}/files/${encodeURIComponent(path)}`, undefined, { raw: body, headers: { "content-type": "text/markdown" } });
    const res = await put("skills/notes.md", "# notes\n");
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ deployment_id: d.deployment_id, path: "skills/notes.md", size: 8 });
    expectValidation(await put("../escape.md", "x"));
    expectValidation(await put("a/../../escape.md", "x"));
    expectValidation(await put("skills/big.md", "x".repeat(1024 * 1024 + 1)), "body: must be at most 1048576 bytes");
  });

  it("refuses a file under a file with 400, the service still answering (more than a pipe holds, unread)", async () => {
    const d = await readyDeployment(api);
    const put = (path: string, body: string) =>
      api.put(`/v1/deployments/${d.deployment_id}/files/${encodeURIComponent(path)}`, undefined, { raw: body, headers: { "content-type": "text/markdown" } });
    expect((await put("notes", "x")).status).to.equal(200);
    expectValidation(await put("notes/inner.md", "y".repeat(512 * 1024)));
    expect((await put("other.md", "z")).status).to.equal(200);
  });
});
