/** Turns built from a worker's cached transcript plus the events since: replaced results, queued prompts and steers, and a second worker starting cold. */
import { expect } from "chai";
import { TranscriptCache } from "../src/worker/transcript-cache.js";
import { Transcripts } from "../src/worker/transcripts.js";
import { conversation } from "../src/worker/domain/transcript-fold.js";
import { FakeAnthropic } from "./support/fake-anthropic.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, history, sendText, settle } from "./support/sessions.js";
import { allow, lookup, sessionSteps } from "./tools-cases.js";

const KEY = "sk-ant-test-key";
const cold = (server: TestServer) => new Transcripts(server.core.redis.eventLog, new TranscriptCache({ sessions: 10, bytes: 2 ** 24 }));
type Message = { role: string; content: { type: string; text?: string; content?: string; tool_use_id?: string; cache_control?: unknown }[] };
/** A request's messages without the cache breakpoint, which moves to the last block of each request. */
const plain = (messages: Message[]) => messages.map((m) => ({ ...m, content: m.content.map(({ cache_control: _, ...b }) => b) }));

describe("turns from a cached transcript", () => {
  let fake: FakeAnthropic;
  let server: TestServer;
  let api: Client;
  const start = async () => {
    server = await startServer({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_RETRY_BASE_MS: "1" });
    api = client(server.url, await server.newKey("transcript-cache"));
  };
  const { post, paused } = sessionSteps(() => api);

  before(async () => {
    fake = await FakeAnthropic.start({ apiKey: KEY });
    await start();
  });
  beforeEach(() => fake.reset());
  after(async () => {
    await server?.close();
    await fake?.close();
  });

  it("a long-running result replaced after the worker cached it is what the next turn sees; a second worker, cold, builds the same transcript", async () => {
    const { sessionId } = await createSession(api, { agent: { modelName: "anthropic/claude-sonnet-4-6", tools: [lookup({ permissionPolicy: allow })] } });
    fake.push(
      { toolUses: [{ id: "toolu_1", name: "lookup", input: { order: "A-1" } }] },
      { text: "Working on it." },
      { text: "It shipped." },
      { text: "Anything else?" },
    );
    await sendText(api, sessionId, "where is A-1?");
    const use = (await paused(sessionId)).events.find((e) => e.type === "agent.custom_tool_use");
    await post(sessionId, { type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "job started" }], status: "running" });
    await settle(api, sessionId, 2);
    // The worker's cache now holds the running result; the final one replaces it in the log only.
    await post(sessionId, { type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "job done" }], status: "completed" });
    await settle(api, sessionId, 3);
    await sendText(api, sessionId, "thanks");
    await settle(api, sessionId, 4);

    const [, , replaced, warm] = fake.requests.map((r) => r.body.messages as Message[]);
    for (const messages of [replaced!, warm!]) {
      const results = messages.flatMap((m) => m.content).filter((b) => b.type === "tool_result");
      expect(results).to.have.length(1);
      expect(results[0]).to.deep.include({ tool_use_id: use.id, content: "job done" });
      expect(JSON.stringify(messages)).to.not.include("job started");
    }
    expect(replaced!.at(-1)!.content.at(-1)!.text).to.match(/^A long-running tool call has finished/);

    // Another worker (a fresh process's runtime, its cache empty) takes the next turn.
    await server.close();
    await start();
    await sendText(api, sessionId, "bye");
    await settle(api, sessionId, 5);
    const second = fake.requests[4]!.body.messages as Message[];
    const expected = [
      ...warm!,
      { role: "assistant", content: [{ type: "text", text: "Anything else?" }] },
      { role: "user", content: [{ type: "text", text: "bye" }] },
    ];
    expect(plain(second)).to.deep.equal(plain(expected));
  });

  it("a worker's fold caught up turn by turn equals a cold one and the full rebuild, through steers, queued prompts and tools", async () => {
    const { sessionId } = await createSession(api, { agent: { tools: [lookup({ permissionPolicy: allow })] } });
    const warm = cold(server);
    const check = async () => {
      const caughtUp = await warm.forCall(sessionId);
      const fresh = await cold(server).forCall(sessionId);
      expect(caughtUp).to.deep.equal(fresh);
      const log = [];
      for await (const { envelope } of server.core.redis.eventLog.events(sessionId, 0)) log.push(envelope);
      expect(caughtUp.messages).to.deep.equal(conversation(log));
      return caughtUp;
    };

    await post(sessionId, { type: "user.steer", message: "be brief" });
    expect((await check()).steers.map((s) => s.text)).to.deep.equal(["be brief"]);
    await sendText(api, sessionId, "/tool lookup {}");
    const use = (await paused(sessionId)).events.find((e) => e.type === "agent.custom_tool_use");
    await check();
    // Queued during the pause, so the fold holds it without a turn until the turn after this one starts.
    expect((await sendText(api, sessionId, "two", "when_idle")).body.data[0].status).to.equal("queued");
    await check();
    await post(sessionId, { type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "job started" }], status: "running" });
    await settle(api, sessionId, 3);
    const afterQueue = await check();
    expect(afterQueue.steers).to.deep.equal([]);
    expect(JSON.stringify(afterQueue.messages)).to.include("job started").and.include("echo: two");
    await post(sessionId, { type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "job done" }], status: "completed" });
    await settle(api, sessionId, 4);
    const final = await check();
    const result = final.messages.flatMap((m) => m.content).find((b) => b.type === "tool_result" && b.tool_use_id === use.id);
    expect(result).to.deep.include({ content: "job done" });
    expect((await history(api, sessionId)).length).to.be.greaterThan(10);
  });
});
