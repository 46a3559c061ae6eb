/** Tool calls through sessions, one per turn, with their results; and what the test process sees of the processes they start. */
import { readdirSync, readFileSync } from "node:fs";
import type { Client } from "./server.js";
import { sendText, settle } from "./sessions.js";

export interface ToolResult {
  ok: boolean;
  text: string;
}

/** A tool result's output: past 20,000 characters it comes in several blocks, one text (`textBlocks`). */
export const outputText = (payload: { content: { text: string }[] }): string => payload.content.map((b) => b.text).join("");

/** A caller of built-in tools on sessions of `api()`: each call is a turn of the mock model (`/tool name input`). */
export function toolCaller(api: () => Client) {
  const turns = new Map<string, number>();
  return async function call(sessionId: string, name: string, input: unknown, timeoutMs = 15_000): Promise<ToolResult> {
    await sendText(api(), sessionId, `/tool ${name} ${JSON.stringify(input)}`);
    const n = (turns.get(sessionId) ?? 0) + 1;
    turns.set(sessionId, n);
    const events = await settle(api(), sessionId, n, timeoutMs);
    const result = events.filter((e) => e.type === "agent.tool_result").at(-1).payload;
    return { ok: !result.is_error, text: outputText(result) };
  };
}

/** The JSON object a successful call answered (`process`, a background `terminal`). */
export function answer(result: ToolResult): Record<string, any> {
  if (!result.ok) throw new Error(`the tool failed: ${result.text}`);
  return JSON.parse(result.text) as Record<string, any>;
}

/** A process that exists and is not a zombie (a killed orphan may stay one where nothing reaps it). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** The live processes whose real uid is `uid`. */
export function processesOf(uid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        const uidLine = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
        return uidLine !== null && Number(uidLine[1]) === uid && alive(pid);
      } catch {
        return false;
      }
    });
}
