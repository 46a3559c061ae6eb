/** Rebuilds what the model sees from the durable log (event sourcing): pure, no I/O. */
import type { ModelMessage } from "../models/provider.js";
import type { Attachment, Envelope, TextBlock } from "./events.js";
import { textOf } from "./events.js";

function payloadOf<T>(e: Envelope): T {
  return e.payload as unknown as T;
}

function userMessage(e: Envelope): ModelMessage {
  const p = payloadOf<{ content: TextBlock[]; attachments?: Attachment[] }>(e);
  return {
    role: "user",
    content: [{ type: "text", text: textOf(p.content) }, ...(p.attachments ?? []).map((attachment) => ({ type: "attachment" as const, attachment }))],
  };
}

/**
 * The conversation so far, turn by turn: each turn's user messages where the turn started (a queued
 * prompt joins the conversation when its turn comes, not where it was sent), then the agent's
 * complete messages. `log` must carry the status overlay, which gives started prompts their turn.
 */
export function conversation(log: Envelope[]): ModelMessage[] {
  const promptsByTurn = new Map<string, Envelope[]>();
  for (const e of log) {
    if (e.type !== "user.message" || e.turnId === null) continue;
    promptsByTurn.set(e.turnId, [...(promptsByTurn.get(e.turnId) ?? []), e]);
  }
  const out: ModelMessage[] = [];
  for (const e of log) {
    if (e.type === "session.status_running" && e.turnId) {
      for (const prompt of promptsByTurn.get(e.turnId) ?? []) out.push(userMessage(prompt));
    } else if (e.type === "agent.message" && payloadOf<{ delta: boolean }>(e).delta === false) {
      out.push({ role: "assistant", content: [{ type: "text", text: textOf(payloadOf<{ content: TextBlock[] }>(e).content) }] });
    }
  }
  return out;
}

/** The texts of the given steer events, in log order. */
export function steerTexts(log: Envelope[], ids: string[]): { id: string; text: string }[] {
  const wanted = new Set(ids);
  return log.filter((e) => e.type === "user.steer" && wanted.has(e.id)).map((e) => ({ id: e.id, text: String(e.payload.message) }));
}

/** A short title from the first user message: its first line, cut at a word boundary. */
export function titleFrom(text: string, max = 60): string {
  const line = text.split("\n").map((l) => l.trim()).find((l) => l.length > 0) ?? "New conversation";
  if (line.length <= max) return line;
  const cut = line.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
