/**
 * vision_analyze through sessions on the mock model, which answers an image question with the
 * question and a fingerprint of the image it was shown: an attachment named by its reference or
 * filename, or a URL fetched through the outbound guard; and the refusals (bad input, no such
 * attachment, not an image, too large, a refused destination).
 */
import { expect } from "chai";
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DOT_PNG, file, messageWith, onePagePdf } from "./support/documents.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, history, sendText, settle, until } from "./support/sessions.js";
import { outputText } from "./support/tool-calls.js";
import { allow, toolset } from "./tools-cases.js";

const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const fingerprint = (bytes: Buffer, mediaType = "image/png") =>
  `[${mediaType}, ${bytes.length} bytes, sha256 ${createHash("sha256").update(bytes).digest("hex").slice(0, 8)}]`;

describe("vision_analyze", () => {
  let images: Server;
  let origin: string;
  let server: TestServer;
  let api: Client;
  const vision = { agent: { tools: [toolset(allow)] } };
  const big = Buffer.alloc(MAX_IMAGE_BYTES + 1, 7);

  before(async () => {
    images = createServer((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path === "/dot.png") return void res.writeHead(200, { "content-type": "image/png" }).end(DOT_PNG);
      if (path === "/big.png") return void res.writeHead(200, { "content-type": "image/png" }).end(big);
      if (path === "/page.html") return void res.writeHead(200, { "content-type": "text/html" }).end("<p>hi</p>");
      if (path === "/to-other-host") return void res.writeHead(302, { location: `http://127.0.0.2:${(images.address() as AddressInfo).port}/dot.png` }).end();
      res.writeHead(404).end("no");
    });
    await new Promise<void>((resolve) => images.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    server = await startServer({ WORKSPACE_ROOT: `/tmp/agent-sessions-test-ws-${process.pid}` });
    api = client(server.url, await server.newKey());
  });
  after(async () => {
    await server?.close();
    images?.close();
  });

  /** A session whose first message carries `attachments`; returns it with that message's event id. */
  async function withAttachments(...attachments: unknown[]): Promise<{ sessionId: string; eventId: string }> {
    const { sessionId } = await createSession(api, vision);
    const sent = await api.post(`/v1/sessions/${sessionId}/events`, { events: [messageWith("here you are", ...attachments)] });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(202);
    await settle(api, sessionId, 1);
    return { sessionId, eventId: sent.body.data[0].id };
  }

  /** The tool result of `/tool vision_analyze <input>` in the session's next turn. */
  async function analyze(sessionId: string, input: unknown, turns = 2): Promise<{ isError: boolean; text: string; events: any[] }> {
    await sendText(api, sessionId, `/tool vision_analyze ${JSON.stringify(input)}`);
    const events = await settle(api, sessionId, turns);
    const result = events.filter((e) => e.type === "agent.tool_result").at(-1).payload;
    return { isError: result.is_error, text: outputText(result), events };
  }

  it("answers about an attachment named by its reference or by its filename, with the session's model", async () => {
    const { sessionId, eventId } = await withAttachments(file("dot.png", "image/png", DOT_PNG), file("notes.txt", "text/plain", Buffer.from("x")));
    const byRef = await analyze(sessionId, { image: `${eventId}/0`, question: "What colour is it?" });
    expect(byRef).to.deep.include({ isError: false, text: `vision: What colour is it? ${fingerprint(DOT_PNG)}` });
    expect(agentTexts(byRef.events).at(-1)).to.equal(`tool vision_analyze result: vision: What colour is it? ${fingerprint(DOT_PNG)}`);
    const byName = await analyze(sessionId, { image: "dot.png", question: "How big?" }, 3);
    expect(byName).to.deep.include({ isError: false, text: `vision: How big? ${fingerprint(DOT_PNG)}` });
  });

  it("finds an attachment a compaction took out of the conversation, by reference (which the summary keeps) and by filename", async () => {
    const { sessionId, eventId } = await withAttachments(file("dot.png", "image/png", DOT_PNG));
    expect((await api.post(`/v1/sessions/${sessionId}/compact`, {})).status).to.equal(202);
    const [compacted] = (
      await until(
        () => history(api, sessionId),
        (h) => h.some((e) => e.type === "session.compacted"),
        15_000,
        "session.compacted",
      )
    ).filter((e) => e.type === "session.compacted");
    expect(compacted.payload.summary).to.include(`[attachment ${eventId}/0: dot.png`);
    await sendText(api, sessionId, "/context");
    expect(agentTexts(await settle(api, sessionId, 2)).at(-1)).to.match(/^context: 2 messages; first: /);
    expect(await analyze(sessionId, { image: `${eventId}/0`, question: "Still there?" }, 3)).to.deep.include({
      isError: false,
      text: `vision: Still there? ${fingerprint(DOT_PNG)}`,
    });
    expect(await analyze(sessionId, { image: "dot.png", question: "And by name?" }, 4)).to.deep.include({
      isError: false,
      text: `vision: And by name? ${fingerprint(DOT_PNG)}`,
    });
  });

  it("answers about an image URL, fetched through the outbound guard", async () => {
    const { sessionId } = await createSession(api, vision);
    const result = await analyze(sessionId, { image: `${origin}/dot.png`, question: "What is shown?" }, 1);
    expect(result).to.deep.include({ isError: false, text: `vision: What is shown? ${fingerprint(DOT_PNG)}` });
  });

  it("refuses an attachment that is missing, not an image the model reads, or too large", async () => {
    const { sessionId, eventId } = await withAttachments(
      file("doc.pdf", "application/pdf", onePagePdf("hi")),
      file("old.bmp", "image/bmp", Buffer.from("BM")),
      file("huge.png", "image/png", big),
    );
    const types = "image/png, image/jpeg, image/gif, image/webp";
    const cases: [unknown, string][] = [
      [
        { image: "nope.png", question: "?" },
        'no attachment of this conversation is named "nope.png": name one by the reference shown with it (e.g. evt_…/0) or by its filename',
      ],
      [
        { image: `${eventId}/7`, question: "?" },
        `no attachment of this conversation is named "${eventId}/7": name one by the reference shown with it (e.g. evt_…/0) or by its filename`,
      ],
      [{ image: `${eventId}/0`, question: "?" }, `doc.pdf is application/pdf, not an image type this model reads (${types})`],
      [{ image: "old.bmp", question: "?" }, `old.bmp is image/bmp, not an image type this model reads (${types})`],
      [{ image: "huge.png", question: "?" }, `huge.png is over ${MAX_IMAGE_BYTES} bytes, the largest image the model takes`],
    ];
    let turns = 1;
    for (const [input, text] of cases) expect(await analyze(sessionId, input, ++turns)).to.deep.include({ isError: true, text });
  });

  it("refuses a URL that is not an image, too large, missing, or a destination the outbound guard refuses", async () => {
    const { sessionId } = await createSession(api, vision);
    const cases: [string, string][] = [
      [`${origin}/page.html`, "the URL is not an image (content type text/html)"],
      [`${origin}/big.png`, `the image is over ${MAX_IMAGE_BYTES} bytes, the largest the model takes`],
      [`${origin}/missing.png`, "the image URL answered HTTP 404"],
      [`${origin}/to-other-host`, "refused: 127.0.0.2 is a loopback address"],
      ["http://169.254.169.254/latest/meta-data/", "refused: 169.254.169.254 is a link-local address (cloud metadata service)"],
    ];
    let turns = 0;
    for (const [image, text] of cases) expect(await analyze(sessionId, { image, question: "?" }, ++turns)).to.deep.include({ isError: true, text });
  });

  it("bad input is a tool error naming the problem", async () => {
    const { sessionId } = await createSession(api, vision);
    const cases: [unknown, string][] = [
      [{ image: "dot.png" }, "invalid input: question: is required"],
      [{ image: "", question: "?" }, "invalid input: image: must not be empty"],
      [{ image: "dot.png", question: "?", detail: "high" }, "invalid input: detail: is not allowed"],
      [{ image: 5, question: "x".repeat(2001) }, "invalid input: image: must be string; question: must be at most 2000 characters"],
    ];
    let turns = 0;
    for (const [input, text] of cases) expect(await analyze(sessionId, input, ++turns)).to.deep.include({ isError: true, text });
  });
});
