/** Event bodies and a roomy session for the POST events tests. */
import type { Client, TestServer } from "./support/server.js";
import { createAgent, createSession, message, newTenant } from "./support/api.js";

export function dataUrl(mediaType: string, bytes: Buffer | string = "hello"): string {
  return `data:${mediaType};base64,${Buffer.from(bytes).toString("base64")}`;
}

export function attachment(mediaType: string, extra: Record<string, unknown> = {}, bytes: Buffer | string = "hello"): Record<string, unknown> {
  return { type: "file", filename: "report.bin", mediaType, source: { type: "data_url", dataUrl: dataUrl(mediaType, bytes) }, ...extra };
}

export function withAttachments(...attachments: unknown[]): Record<string, unknown> {
  return message("see attached", { attachments });
}

export function blocks(n: number, text = "b"): { type: "text"; text: string }[] {
  return Array.from({ length: n }, () => ({ type: "text" as const, text }));
}

/** A tenant whose agent allows plenty of messages, so only the rule under test decides. */
export async function roomySession(server: TestServer): Promise<{ api: Client; agentId: string; sessionId: string }> {
  const api = await newTenant(server);
  const agent = await createAgent(api, { rateLimits: { messagesPerMinute: 1000 } });
  const session = await createSession(api, agent.id);
  return { api, agentId: agent.id, sessionId: session.id };
}
