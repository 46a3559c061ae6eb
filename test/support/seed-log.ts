/**
 * A session's history written straight into its Redis log, in pipelines, for tests and benchmarks that
 * need many events fast: finished turns of five events each (the prompt, the turn's start, a tool use,
 * its result, the turn's end), laid out as the append script lays them out.
 */
import type { RedisClient } from "../../src/redis/client.js";
import type { Keys } from "../../src/redis/keys.js";
import { newId } from "../../src/ids.js";

export const EVENTS_PER_TURN = 5;

const usage = {
  model: "mock/echo",
  input: 10,
  output: 5,
  cache_read: 0,
  cache_write: 0,
  reasoning: 0,
  total: 15,
  calls: 2,
  context_used: 1234,
  context_max: 200_000,
  context_percent: 1,
  cost_status: "included",
  last_turn_latency_ms: 3,
  latency_ms: 3,
  cost_usd: 0,
};

/** The payloads of one turn, in log order; `useId` is the tool use's event id. */
function turnPayloads(n: number, useId: string): { payload: Record<string, unknown>; status: string; id?: string; usage?: typeof usage }[] {
  return [
    { payload: { type: "user.message", content: [{ type: "text", text: `prompt ${n}` }] }, status: "processed" },
    { payload: { type: "session.status_running" }, status: "complete" },
    { id: useId, payload: { type: "agent.tool_use", id: useId, tool: "skills_list", input: {}, status: "running" }, status: "complete" },
    {
      payload: {
        type: "agent.tool_result",
        tool_use_id: useId,
        tool: "skills_list",
        status: "completed",
        content: [{ type: "text", text: `result ${n}` }],
        is_error: false,
      },
      status: "complete",
    },
    { payload: { type: "session.status_idle", stop_reason: { type: "end_turn" } }, status: "complete", usage },
  ];
}

/** Appends `turns` finished turns after the log's last sequence (`after`); answers the new last sequence. */
export async function seedTurns(redis: RedisClient, keys: Keys, sessionId: string, turns: number, after = 0): Promise<number> {
  const now = new Date().toISOString();
  let seq = after;
  for (let done = 0; done < turns;) {
    const pipeline = redis.pipeline();
    for (const end = Math.min(turns, done + 200); done < end; done++) {
      const turnId = newId("turn");
      for (const e of turnPayloads(seq / EVENTS_PER_TURN, newId("evt"))) {
        seq += 1;
        const env = {
          id: e.id ?? newId("evt"),
          type: e.payload.type,
          sessionId,
          sequence: seq,
          turnId,
          status: e.status,
          payload: e.payload,
          processedAt: e.status === "processed" ? now : null,
          createdAt: now,
          ...(e.usage ? { usage: e.usage } : {}),
        };
        pipeline.xadd(
          keys.sessionLog(sessionId),
          `${seq}-0`,
          "type",
          env.type as string,
          "seq",
          seq,
          "turn",
          turnId,
          "live",
          "0-0",
          "env",
          JSON.stringify(env),
        );
      }
    }
    pipeline.set(keys.sessionSeq(sessionId), seq);
    for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
  }
  return seq;
}
