/**
 * Attachments and vision_analyze on the anthropic provider, against the fake Messages API: what the
 * requests hold (each attachment after a line naming it; DOCX and XLSX as text documents, a PDF as a
 * base64 document in either analysis mode, images as image blocks), and the image question's own call.
 */
import { expect } from "chai";
import { useAnthropicService } from "./support/anthropic-service.js";
import { DOCX, DOT_PNG, file, messageWith, onePagePdf, refundsDocx, workbook, XLSX } from "./support/documents.js";
import { createSession, settle } from "./support/sessions.js";
import { allow, toolset } from "./tools-cases.js";

describe("attachments on the anthropic provider", () => {
  const svc = useAnthropicService();
  const agent = (extra: Record<string, unknown> = {}) => ({ agent: { modelName: "anthropic/claude-sonnet-4-6", systemPrompt: "Be kind.", ...extra } });
  const b64 = (b: Buffer) => b.toString("base64");

  it("each attachment follows a line naming it: DOCX and XLSX as their text, a visual PDF as a document, an image as an image", async () => {
    const pdf = onePagePdf("Hello PDF world");
    const xlsx = await workbook({ S: [["a", 1]] });
    const { sessionId } = await createSession(svc.api, agent());
    const sent = await svc.api.post(`/v1/sessions/${sessionId}/events`, {
      events: [
        messageWith(
          "what are these?",
          file("refunds.docx", DOCX, refundsDocx()),
          file("s.xlsx", XLSX, xlsx),
          file("scan.pdf", "application/pdf", pdf, { analysisMode: "visual" }),
          file("dot.png", "image/png", DOT_PNG),
        ),
      ],
    });
    expect(sent.status).to.equal(202);
    await settle(svc.api, sessionId, 1);
    const id = sent.body.data[0].id;
    const content = svc.fake.requests[0]!.body.messages[0].content.map(({ cache_control: _, ...b }: Record<string, unknown>) => b);
    const label = (text: string) => ({ type: "text", text });
    expect(content).to.deep.equal([
      { type: "text", text: "what are these?" },
      label(`[attachment ${id}/0: refunds.docx, ${DOCX}]`),
      { type: "document", title: "refunds.docx", source: { type: "text", media_type: "text/plain", data: "Refund policy\n\nRefunds within 30 days." } },
      label(`[attachment ${id}/1: s.xlsx, ${XLSX}]`),
      { type: "document", title: "s.xlsx", source: { type: "text", media_type: "text/plain", data: "## Sheet: S\na,1" } },
      label(`[attachment ${id}/2: scan.pdf, application/pdf; visual analysis of its pages asked]`),
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: b64(pdf) } },
      label(`[attachment ${id}/3: dot.png, image/png]`),
      { type: "image", source: { type: "base64", media_type: "image/png", data: b64(DOT_PNG) } },
    ]);
  });

  it("vision_analyze asks the session's model in a call of its own, without tools, and its tokens count in the turn's usage", async () => {
    svc.fake.push(
      {
        toolUses: [{ id: "toolu_v", name: "vision_analyze", input: { image: "dot.png", question: "What colour is the dot?" } }],
        stopReason: "tool_use",
        usage: { input_tokens: 100, output_tokens: 10 },
      },
      { text: "A transparent dot.", usage: { input_tokens: 1000, output_tokens: 5 } },
      { text: "The dot is transparent.", usage: { input_tokens: 200, output_tokens: 7 } },
    );
    const { sessionId } = await createSession(svc.api, agent({ tools: [toolset(allow)] }));
    await svc.api.post(`/v1/sessions/${sessionId}/events`, { events: [messageWith("what colour?", file("dot.png", "image/png", DOT_PNG))] });
    const events = await settle(svc.api, sessionId, 1);

    const question = svc.fake.requests[1]!.body;
    expect(question.model).to.equal("claude-sonnet-4-6");
    expect(question.system[0].text).to.match(/^You are shown one image\./);
    expect(question).to.not.have.property("tools");
    expect(question.messages).to.have.length(1);
    expect(question.messages[0].content.map(({ cache_control: _, ...b }: Record<string, unknown>) => b)).to.deep.equal([
      { type: "image", source: { type: "base64", media_type: "image/png", data: b64(DOT_PNG) } },
      { type: "text", text: "What colour is the dot?" },
    ]);
    const result = svc.fake.requests[2]!.body.messages.at(-1).content.find((b: { type: string }) => b.type === "tool_result");
    expect(JSON.stringify(result.content)).to.include("A transparent dot.");
    expect(events.find((e) => e.type === "agent.tool_result").payload).to.deep.include({ is_error: false });
    const usage = events.filter((e) => e.type === "session.status_idle").at(-1).usage;
    expect(usage).to.include({ input: 1300, output: 22, calls: 2 });
  });
});
