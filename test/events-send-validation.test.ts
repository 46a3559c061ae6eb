/** POST events: the bodies refused with 400 validation_error, persisting and counting nothing. */
import { expect } from "chai";
import { roomInWindow } from "./support/expect.js";
import { startServer, type Client, type TestServer } from "./support/server.js";
import { allEvents, message, remainingOf, send, steer } from "./support/api.js";
import { attachment, blocks, dataUrl, roomySession, withAttachments } from "./events-send-cases.js";

describe("POST events: validation", () => {
  let server: TestServer;
  let api: Client;
  let sessionId: string;
  let probes = 0;

  before(async () => {
    server = await startServer();
    ({ api, sessionId } = await roomySession(server));
  });
  beforeEach(() => roomInWindow(3_000));
  after(async () => server.close());

  /** An accepted one-point request (an interrupt while idle): its sequence and the allowance left. */
  async function probe(): Promise<{ sequence: number; remaining: number }> {
    const res = await send(api, sessionId, [{ type: "user.interrupt" }]);
    expect(res.status).to.equal(202);
    probes++;
    return { sequence: res.body.data[0].sequence, remaining: remainingOf(res) };
  }

  /** The request is refused as a whole: nothing is persisted and no allowance point is used. */
  async function expectRejected(body: unknown, expected: string): Promise<void> {
    const before = await probe();
    const res = await api.post(`/v1/sessions/${sessionId}/events`, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error).to.equal("validation_error");
    expect(res.body.message).to.contain(expected);
    const after = await probe();
    expect(after.sequence, "nothing persisted").to.equal(before.sequence + 1);
    expect(after.remaining, "nothing counted").to.equal(before.remaining - 1);
  }

  const interrupt = { type: "user.interrupt" };
  const cases: [string, () => unknown, string][] = [
    ["no events field", () => ({}), "events: is required"],
    ["0 events", () => ({ events: [] }), "events: must have at least 1 items"],
    ["101 events", () => ({ events: Array.from({ length: 101 }, () => interrupt) }), "events: must have at most 100 items"],
    ["an unknown event type", () => ({ events: [{ type: "user.sudo_result" }] }), "events[0].type: must be one of: user.message, user.steer"],
    ["an event without a type", () => ({ events: [{ message: "x" }] }), "events[0].type: is required"],
    ["a valid event beside an invalid one", () => ({ events: [interrupt, { type: "user.steer", message: "" }] }), "events[1].message: must not be empty"],
    ["a user.message with 0 text blocks", () => ({ events: [{ type: "user.message", content: [] }] }), "events[0].content: must have at least 1 items"],
    [
      "a user.message with 101 text blocks",
      () => ({ events: [{ type: "user.message", content: blocks(101) }] }),
      "events[0].content: must have at most 100 items",
    ],
    ["an empty text", () => ({ events: [message("")] }), "events[0].content[0].text: must not be empty"],
    ["a text of 20,001 characters", () => ({ events: [message("x".repeat(20_001))] }), "events[0].content[0].text: must be at most 20000 characters"],
    [
      "a text block of another type",
      () => ({ events: [{ type: "user.message", content: [{ type: "image", text: "x" }] }] }),
      "events[0].content[0].type: must be text",
    ],
    ["a user.message without content", () => ({ events: [{ type: "user.message" }] }), "events[0].content: is required"],
    ["a user.message with an unknown field", () => ({ events: [message("hi", { role: "admin" })] }), "events[0].role: is not allowed"],
    ["a user.steer without message", () => ({ events: [{ type: "user.steer" }] }), "events[0].message: is required"],
    [
      "a user.approval_response without approval_id",
      () => ({ events: [{ type: "user.approval_response", result: "allow" }] }),
      "events[0].approval_id: is required",
    ],
    [
      "a user.approval_response without result",
      () => ({ events: [{ type: "user.approval_response", approval_id: "evt_1" }] }),
      "events[0].result: is required",
    ],
    [
      "a user.approval_response with a bad result",
      () => ({ events: [{ type: "user.approval_response", approval_id: "evt_1", result: "maybe" }] }),
      "events[0].result: must be one of: allow, deny",
    ],
    [
      "a user.approval_response with a bad scope",
      () => ({ events: [{ type: "user.approval_response", approval_id: "evt_1", result: "allow", scope: "forever" }] }),
      "events[0].scope: must be one of: once, session, always",
    ],
    [
      "a user.custom_tool_result without tool_use_id",
      () => ({ events: [{ type: "user.custom_tool_result", content: blocks(1) }] }),
      "events[0].tool_use_id: is required",
    ],
    [
      "a user.custom_tool_result without content",
      () => ({ events: [{ type: "user.custom_tool_result", tool_use_id: "evt_1" }] }),
      "events[0].content: is required",
    ],
    [
      "a user.custom_tool_result with a bad status",
      () => ({ events: [{ type: "user.custom_tool_result", tool_use_id: "evt_1", content: blocks(1), status: "done" }] }),
      "events[0].status: must be one of: running, completed, failed",
    ],
    ["a user.clarify_result without request_id", () => ({ events: [{ type: "user.clarify_result", answer: "yes" }] }), "events[0].request_id: is required"],
    ["a user.clarify_result without answer", () => ({ events: [{ type: "user.clarify_result", request_id: "req_1" }] }), "events[0].answer: is required"],
    [
      "11 attachments",
      () => ({ events: [withAttachments(...Array.from({ length: 11 }, () => attachment("text/plain")))] }),
      "events[0].attachments: must have at most 10 items",
    ],
    [
      "an attachment with a media type not accepted",
      () => ({ events: [withAttachments(attachment("application/zip"))] }),
      "events[0].attachments[0].mediaType: must be one of",
    ],
    [
      "a data URL whose media type differs from mediaType",
      () => ({ events: [withAttachments({ ...attachment("image/png"), source: { type: "data_url", dataUrl: dataUrl("image/jpeg") } })] }),
      "events[0].attachments[0].source.dataUrl: media type must equal mediaType",
    ],
    [
      "a data URL that is not base64",
      () => ({ events: [withAttachments({ ...attachment("text/plain"), source: { type: "data_url", dataUrl: "data:text/plain;base64,not base64!" } })] }),
      "events[0].attachments[0].source.dataUrl: must be valid base64",
    ],
    [
      "a data URL that is not a data URL",
      () => ({ events: [withAttachments({ ...attachment("text/plain"), source: { type: "data_url", dataUrl: "https://example.com/a.txt" } })] }),
      "events[0].attachments[0].source.dataUrl: must match the pattern",
    ],
    [
      "sizeBytes different from the decoded size",
      () => ({ events: [withAttachments(attachment("text/plain", { sizeBytes: 6 }, "hello"))] }),
      "events[0].attachments[0].sizeBytes: must equal the decoded size of source.dataUrl",
    ],
    [
      "analysisMode visual on a non-PDF",
      () => ({ events: [withAttachments(attachment("image/png", { analysisMode: "visual" }))] }),
      "events[0].attachments[0].analysisMode: visual is only for application/pdf",
    ],
    ["two user.message in one request", () => ({ events: [message("a"), message("b")] }), "events: at most one event per request may start a turn"],
    [
      "delivery when_idle with a non-message event",
      () => ({ events: [message("a"), steer("b")], delivery: "when_idle" }),
      "events[1].type: delivery when_idle accepts only user.message events",
    ],
    ["a bad delivery value", () => ({ events: [interrupt], delivery: "later" }), "delivery: must be one of: immediate, when_idle"],
    ["metadata with an object value", () => ({ events: [message("hi", { metadata: { nested: { a: 1 } } })] }), "events[0].metadata[*]: must be one of"],
    ["an unknown top-level field", () => ({ events: [interrupt], priority: 1 }), "priority: is not allowed"],
  ];
  for (const [name, body, expected] of cases) {
    it(`refuses ${name} with 400 validation_error, persisting and counting nothing`, async () => {
      await expectRejected(body(), expected);
    });
  }

  it("history holds only the accepted probes", async () => {
    const history = await allEvents(api, sessionId);
    expect(history.map((e) => e.type)).to.deep.equal(Array.from({ length: probes }, () => "user.interrupt"));
  });
});
