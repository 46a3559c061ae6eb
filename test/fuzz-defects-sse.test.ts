/** A defect found by a real client: an SSE cursor of one session's stream must not resume another's. */
import { expect } from "chai";
import { client, startServer, type TestServer } from "./support/server.js";
import { createAgent, createSession, message, sendOk } from "./support/api.js";
import { expectError } from "./support/expect.js";
import { getStream, openSse } from "./support/sse.js";

describe("fuzzer and client defects (with a worker)", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => server.close());

  it("an SSE Last-Event-ID from one session's stream is refused on another session's stream", async () => {
    const key = await server.newKey();
    const api = client(server.url, key);
    const agent = await createAgent(api);
    const [a, b] = [await createSession(api, agent.id), await createSession(api, agent.id)];
    const stream = (id: string) => `${server.url}/v1/sessions/${id}/events/stream`;
    const sse = await openSse(stream(a.id), key);
    expect(sse.status).to.equal(200);
    await sendOk(api, a.id, [message("hi")]);
    await sse.waitFor((f) => f.some((x) => x.event === "session.status_idle"));
    sse.close();
    const cursor = sse.frames.filter((f) => f.data.sequence !== null && f.id).at(-1)!.id!;

    expectError(await getStream(stream(b.id), key, { "last-event-id": cursor }), 400, "validation_error");
    const own = await getStream(stream(a.id), key, { "last-event-id": cursor });
    expect(own.status, JSON.stringify(own.body)).to.equal(200);
  });
});
