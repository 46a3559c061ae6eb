import { expect } from "chai";
import { roomInWindow } from "./support/expect.js";
import { startServer, type TestServer } from "./support/server.js";
import { allEvents, message, remainingOf, send, sendOk, steer, waitForStatus } from "./support/api.js";
import { attachment, blocks, roomySession, withAttachments } from "./events-send-cases.js";

const ENVELOPE_FIELDS = ["createdAt", "id", "payload", "processedAt", "sequence", "sessionId", "status", "turnId", "type"];

const MEDIA_TYPES = [
  "application/pdf",
  "text/csv",
  "application/csv",
  "text/plain",
  "text/markdown",
  "text/x-markdown",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "image/png",
  "image/jpeg",
  "image/webp",
  "image/gif",
  "image/bmp",
];

describe("POST events: accepted limits and attachments", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => server.close());

  it("accepts 1 and 100 events in one request (100 user.steer), each persisted in order", async () => {
    const { api, sessionId } = await roomySession(server);
    const one = await sendOk(api, sessionId, [steer("only")]);
    expect(one).to.have.length(1);
    const res = await send(
      api,
      sessionId,
      Array.from({ length: 100 }, (_, i) => steer(`s${i}`)),
    );
    expect(res.status).to.equal(202);
    expect(res.body.data).to.have.length(100);
    expect(res.body.data.map((e: any) => e.sequence)).to.deep.equal(Array.from({ length: 100 }, (_, i) => i + 2));
    expect(res.body.data.map((e: any) => e.payload.message)).to.deep.equal(Array.from({ length: 100 }, (_, i) => `s${i}`));
    expect(await allEvents(api, sessionId)).to.have.length(101);
  });

  it("accepts 100 text blocks and a text of exactly 20,000 characters", async () => {
    const { api, sessionId } = await roomySession(server);
    const content = blocks(100);
    content[0] = { type: "text", text: "x".repeat(20_000) };
    const [accepted] = await sendOk(api, sessionId, [{ type: "user.message", content }]);
    expect(accepted.payload.content).to.deep.equal(content);
    await waitForStatus(api, sessionId, "idle");
  });

  it("accepts 10 attachments, and every accepted media type", async () => {
    const { api, sessionId } = await roomySession(server);
    const first = MEDIA_TYPES.slice(0, 10).map((t) => attachment(t));
    const rest = MEDIA_TYPES.slice(10).map((t) => attachment(t, { sizeBytes: 5 }));
    const [a] = await sendOk(api, sessionId, [withAttachments(...first)]);
    expect(a.payload.attachments).to.have.length(10);
    await waitForStatus(api, sessionId, "idle");
    const [b] = await sendOk(api, sessionId, [withAttachments(...rest, attachment("application/pdf", { analysisMode: "visual" }))]);
    expect(b.payload.attachments.map((x: any) => x.mediaType)).to.deep.equal([...MEDIA_TYPES.slice(10), "application/pdf"]);
    await waitForStatus(api, sessionId, "idle");
  });

  it("keeps the accepted attachment, dataUrl included, in history with a sanitized filename", async () => {
    const { api, sessionId } = await roomySession(server);
    const sent = attachment("image/png", { filename: "../x\u0001.png", sizeBytes: 9 }, Buffer.from([137, 80, 78, 71, 13, 10, 26, 10, 0]));
    const [accepted] = await sendOk(api, sessionId, [withAttachments(sent)]);
    await waitForStatus(api, sessionId, "idle");
    const stored = (await allEvents(api, sessionId)).find((e) => e.type === "user.message");
    expect(stored.payload.attachments).to.deep.equal(accepted.payload.attachments);
    const [kept] = stored.payload.attachments;
    expect(kept.source).to.deep.equal(sent.source);
    expect(kept).to.include({ type: "file", mediaType: "image/png", sizeBytes: 9 });
    expect(kept.filename).to.be.a("string").and.not.empty;
    // eslint-disable-next-line no-control-regex -- control characters are what a filename must not keep
    expect(kept.filename).to.not.match(/[/\\\u0000-\u001f\u007f]/);
    expect(kept.filename).to.contain("x").and.contain(".png");
  });

  it("strips every control character (C0, DEL, C1), path separator and bidi override from filenames", async () => {
    const { api, sessionId } = await roomySession(server);
    const names = ["..\\dir/a\u0000\u001f\u007f.txt", "b\u0085\u009f.txt", "\u202egnp.exe\u2066.txt"];
    const [accepted] = await sendOk(api, sessionId, [withAttachments(...names.map((filename) => attachment("text/plain", { filename })))]);
    for (const { filename } of accepted.payload.attachments) {
      expect(filename).to.match(/\.txt$/);
      expect(filename).to.not.match(/[/\\\p{Cc}\u202a-\u202e\u2066-\u2069]/u);
    }
    await waitForStatus(api, sessionId, "idle");
  });

  describe("attachment size", () => {
    const justOver25MB = 25 * 1024 * 1024 + 1;
    let bytes: Buffer;
    before(() => {
      bytes = Buffer.alloc(justOver25MB, 7);
    });

    it("refuses an image larger than 25 MB", async () => {
      const { api, sessionId } = await roomySession(server);
      const res = await send(api, sessionId, [withAttachments(attachment("image/png", {}, bytes))]);
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal("validation_error");
      expect(res.body.message).to.contain("events[0].attachments[0].source.dataUrl: must decode to at most 26214400 bytes");
      expect(await allEvents(api, sessionId)).to.deep.equal([]);
    });

    it("accepts a PDF of the same size", async () => {
      const { api, sessionId } = await roomySession(server);
      const res = await send(api, sessionId, [withAttachments(attachment("application/pdf", { sizeBytes: justOver25MB }, bytes))]);
      expect(res.status, res.status === 202 ? "" : JSON.stringify(res.body)).to.equal(202);
      expect(res.body.data[0].payload.attachments[0].sizeBytes).to.equal(justOver25MB);
      await waitForStatus(api, sessionId, "idle");
      expect((await api.delete(`/v1/sessions/${sessionId}`)).status).to.equal(200);
    });
  });
});

describe("POST events: send rules", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => server.close());

  it("answers 202 {object: list, data} with the persisted envelopes, exactly the envelope fields", async () => {
    const { api, sessionId } = await roomySession(server);
    const sent = message("hi", { metadata: { ticket: "T-9", urgent: true, n: 1, none: null }, attachments: [attachment("text/plain")] });
    const res = await send(api, sessionId, [sent]);
    expect(res.status).to.equal(202);
    expect(Object.keys(res.body).sort()).to.deep.equal(["data", "object"]);
    expect(res.body.object).to.equal("list");
    expect(res.body.data).to.have.length(1);
    const [env] = res.body.data;
    expect(Object.keys(env).sort()).to.deep.equal(ENVELOPE_FIELDS);
    expect(env).to.include({ type: "user.message", sessionId, sequence: 1, status: "received", processedAt: null });
    expect(env.id).to.be.a("string").and.not.empty;
    expect(env.turnId).to.be.a("string").and.not.empty;
    expect(env.payload).to.deep.equal({ ...sent, attachments: [{ ...(sent.attachments as object[])[0], filename: "report.bin" }] });
    expect(new Date(env.createdAt).toISOString()).to.equal(env.createdAt);
    await waitForStatus(api, sessionId, "idle");

    const history = await allEvents(api, sessionId);
    for (const e of history) {
      const fields = e.type === "session.status_idle" ? [...ENVELOPE_FIELDS, "usage"].sort() : ENVELOPE_FIELDS;
      expect(Object.keys(e).sort(), e.type).to.deep.equal(fields);
      expect(e.type).to.equal(e.payload.type);
      expect(e.sessionId).to.equal(sessionId);
    }
    expect(history[0]).to.deep.include({ id: env.id, payload: env.payload, status: "processed" });
  });

  it("a user.message without metadata or attachments has neither in its payload", async () => {
    const { api, sessionId } = await roomySession(server);
    const [env] = await sendOk(api, sessionId, [message("hi")]);
    expect(env.payload).to.deep.equal(message("hi"));
    await waitForStatus(api, sessionId, "idle");
  });

  it("a user.message while a turn runs is 409 invalid_state, persisted and counted nothing", async () => {
    const { api, sessionId } = await roomySession(server);
    await roomInWindow(5_000);
    const started = await send(api, sessionId, [message("/slow 3000 x")]);
    expect(started.status).to.equal(202);
    const before = await allEvents(api, sessionId);
    const res = await send(api, sessionId, [message("again")]);
    expect(res.status).to.equal(409);
    expect(res.body.error).to.equal("invalid_state");
    const probe = await send(api, sessionId, [{ type: "user.interrupt" }]);
    expect(probe.status).to.equal(202);
    expect(remainingOf(probe)).to.equal(remainingOf(started) - 1);
    const after = await allEvents(api, sessionId);
    expect(after.slice(0, before.length).map((e) => e.id)).to.deep.equal(before.map((e) => e.id));
    expect(after.filter((e) => e.type === "user.message")).to.have.length(1);
    // The probe interrupted the turn; it still ends, with a usage snapshot of integers.
    const idle = await waitForStatus(api, sessionId, "idle");
    for (const k of ["input", "output", "total", "calls", "context_used", "context_max", "context_percent", "latency_ms"]) {
      expect(Number.isInteger(idle.usage[k]), `usage.${k}`).to.equal(true);
    }
  });

  for (const event of [
    { type: "user.approval_response", approval_id: "evt_none", result: "allow" },
    { type: "user.custom_tool_result", tool_use_id: "evt_none", content: [{ type: "text", text: "done" }] },
    { type: "user.clarify_result", request_id: "req_none", answer: "" },
  ]) {
    it(`a ${event.type} with nothing pending is 409 no_active_turn, persisted and counted nothing`, async () => {
      const { api, sessionId } = await roomySession(server);
      await roomInWindow(5_000);
      const first = await send(api, sessionId, [{ type: "user.interrupt" }]);
      const res = await send(api, sessionId, [event]);
      expect(res.status).to.equal(409);
      expect(res.body.error).to.equal("no_active_turn");
      const probe = await send(api, sessionId, [{ type: "user.interrupt" }]);
      expect(probe.body.data[0].sequence).to.equal(2);
      expect(remainingOf(probe)).to.equal(remainingOf(first) - 1);
    });
  }

  it("a user.interrupt while idle is persisted as processed and counts one point", async () => {
    const { api, sessionId } = await roomySession(server);
    await roomInWindow(5_000);
    const a = await send(api, sessionId, [{ type: "user.interrupt", message: "stop" }]);
    expect(a.status).to.equal(202);
    const [env] = a.body.data;
    expect(env).to.include({ type: "user.interrupt", status: "processed", turnId: null, sequence: 1 });
    expect(env.processedAt).to.be.a("string");
    expect(env.payload).to.deep.equal({ type: "user.interrupt", message: "stop" });
    const b = await send(api, sessionId, [{ type: "user.interrupt" }]);
    expect(remainingOf(b)).to.equal(remainingOf(a) - 1);
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("idle");
    expect((await allEvents(api, sessionId)).map((e) => e.status)).to.deep.equal(["processed", "processed"]);
  });

  it("a missing session is 404 not_found and a missing body is 400", async () => {
    const { api, sessionId } = await roomySession(server);
    const missing = await send(api, "ses_missing", [{ type: "user.interrupt" }]);
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.equal("not_found");
    const empty = await api.post(`/v1/sessions/${sessionId}/events`);
    expect(empty.status).to.equal(400);
    expect(empty.body.error).to.equal("validation_error");
  });
});
