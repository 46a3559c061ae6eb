/**
 * Fills a database as a deployment with history would be: agents (through the store, so their shape is
 * the service's) in several organizations, and session records written in bulk straight into MongoDB,
 * in the shape the session store writes (`toStored`).
 */
import type { Db } from "mongodb";
import { newId } from "../src/ids.js";
import type { AgentStore } from "../src/agents/store/agents.js";
import { toStored, type SessionDoc, type StoredSession } from "../src/sessions/store/session-shape.js";

const ORGS = 20;
const AGENTS_PER_ORG = 5;
const BATCH = 1_000;
const DAY_MS = 86_400_000;

/** Inserts `count` sessions over ORGS organizations; returns the organizations' ids, for `unseed`. */
export async function seed(db: Db, agents: AgentStore, run: string, count: number): Promise<string[]> {
  const orgIds = Array.from({ length: ORGS }, (_, i) => `org_${run}_${i}`);
  const agentIds: { orgId: string; agentId: string }[] = [];
  for (const orgId of orgIds) {
    for (let a = 0; a < AGENTS_PER_ORG; a++) {
      const config = {
        name: `agent ${a}`,
        modelName: "mock/seed",
        systemPrompt: "You help.",
        skills: [],
        tools: [],
        roles: [],
        mcpServers: [],
        metadata: { team: `t${a}` },
      };
      const agent = await agents.create(orgId, config, { conversationsPerMinute: 5, messagesPerMinute: 100 });
      agentIds.push({ orgId, agentId: agent._id });
    }
  }
  const now = Date.now();
  for (let i = 0; i < count; i += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, count - i) }, (_, j): StoredSession => {
      const n = i + j;
      const { orgId, agentId } = agentIds[n % agentIds.length]!;
      const createdAt = new Date(now - (n % 90) * DAY_MS - n * 1000);
      const turns = 1 + (n % 7);
      const doc: SessionDoc = {
        _id: newId("ses"),
        orgId,
        agentId,
        agentVersion: 1,
        subjectId: `user-${n % 3000}`,
        role: null,
        title: `Conversation ${n} about an order`,
        titleSource: "generated",
        yoloMode: false,
        metadata: { channel: "web", ticket: String(n) },
        status: n % 10 === 0 ? "archived" : "idle",
        statusVersion: 4 * turns,
        usage: {
          model: "mock/seed",
          input: 120 * turns,
          output: 40 * turns,
          cache_read: 0,
          cache_write: 0,
          reasoning: 0,
          total: 160 * turns,
          calls: turns,
          context_used: 160,
          context_max: 200_000,
          context_percent: 0,
          cost_usd: 0,
          cost_status: "included",
          last_turn_latency_ms: 900,
          latency_ms: 900 * turns,
        },
        createdAt,
        updatedAt: new Date(createdAt.getTime() + turns * 60_000),
      };
      return toStored(doc);
    });
    await db.collection<StoredSession>("sessions").insertMany(docs);
  }
  return orgIds;
}

/** Removes what `seed` inserted. */
export async function unseed(db: Db, orgIds: string[]): Promise<void> {
  await Promise.all(["sessions", "agents", "agent_versions"].map((name) => db.collection(name).deleteMany({ orgId: { $in: orgIds } })));
}
