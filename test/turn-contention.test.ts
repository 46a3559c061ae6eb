import { expect } from "chai";
import type { Plan } from "../src/sessions/domain/session-state.js";
import type { Commit } from "../src/sessions/redis/event-appender.js";
import { MAX_ATTEMPTS } from "../src/sessions/transitions.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, sendText, settle } from "./support/sessions.js";

/**
 * A worker whose step cannot be recorded within the transition function's bound (the session changes
 * too often) stops and resumes the turn from the log; it never ends the turn as failed for it.
 */
describe("a contended turn step", () => {
  let server: TestServer;
  let api: Client;
  before(async () => {
    server = await startServer();
    api = client(server.url, await server.newKey());
  });
  after(async () => server.close());

  it("is resumed, not ended as an error, and the model's answer is kept", async () => {
    const { sessionId } = await createSession(api);
    const appender = server.core.redis.appender;
    const apply = appender.apply.bind(appender);
    let staleLeft = MAX_ATTEMPTS;
    // Every attempt to end the turn is refused as stale, once as often as the bound allows.
    appender.apply = async (id: string, plan: Plan, commit: Commit) => {
      const ending = plan.drafts.some((d) => d.type === "session.status_idle");
      if (id === sessionId && commit.fence !== "" && ending && staleLeft-- > 0) {
        return { ok: false, reason: "stale", fields: (await server.core.redis.eventLog.snapshot(id))!.fields };
      }
      return apply(id, plan, commit);
    };
    try {
      await sendText(api, sessionId, "hello");
      const events = await settle(api, sessionId, 1, 20_000);
      expect(events.filter((e) => e.type === "session.status_idle").map((e) => e.payload.stop_reason)).to.deep.equal([{ type: "end_turn" }]);
      expect(agentTexts(events)).to.deep.equal(["echo: hello"]);
    } finally {
      appender.apply = apply;
    }
  });
});
