import { expect } from "chai";
import { planTurnEnd } from "../src/worker/domain/turn-plans.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, sendText } from "./support/sessions.js";

/**
 * The API alone (no worker), so the moment between a turn's end and the worker taking up the oldest
 * queued prompt can be held open: the turn is ended through the event log as a worker would end it.
 */
describe("review: when_idle order at a turn end", () => {
  let server: TestServer;
  let api: Client;
  before(async () => {
    server = await startServer({ ROLE: "api" });
    api = client(server.url, await server.newKey());
  });
  after(async () => server.close());

  it("a when_idle prompt sent after a turn ended, before the queue drained, waits behind the older queued prompt", async () => {
    const { sessionId } = await createSession(api);
    expect((await sendText(api, sessionId, "first")).status).to.equal(202);
    const older = await sendText(api, sessionId, "older", "when_idle");
    expect(older.body.data[0].status).to.equal("queued");

    const log = server.core.redis.eventLog;
    const state = await log.state(sessionId);
    const ended = await server.core.redis.appender.apply(
      sessionId,
      planTurnEnd(state, sessionId, { output: [], stop: { type: "end_turn" } }, new Date().toISOString()),
      { reads: [], fence: "", projection: null },
    );
    expect(ended.ok).to.equal(true);

    const newer = await sendText(api, sessionId, "newer", "when_idle");
    expect(newer.status).to.equal(202);
    expect(newer.body.data[0].status, "the newer prompt must not jump the queue").to.equal("queued");
    expect((await log.state(sessionId)).queue).to.deep.equal([older.body.data[0].id, newer.body.data[0].id]);
  });
});
