/** Store contract: sessions (and their migration), agents, their versions and attached vaults, read back exactly. */
import { expect } from "chai";
import type { AgentConfig } from "../../src/agents/domain/agent-config.js";
import type { Usage } from "../../src/sessions/domain/events.js";
import { AgentStore, versionId } from "../../src/agents/store/agents.js";
import { AgentVaultStore } from "../../src/vaults/store/agent-vaults.js";
import { migrate } from "../../src/mongo/migrations.js";
import { SessionStore, type SessionDoc } from "../../src/sessions/store/sessions.js";
import { any, deps, expectDoc, uid, type ContractCase } from "./target.js";

const AT = new Date("2026-01-02T03:04:05.000Z");
const USAGE: Usage = {
  model: "mock/echo",
  input: 3,
  output: 4,
  cache_read: 0,
  cache_write: 0,
  reasoning: 0,
  total: 7,
  calls: 1,
  context_used: 7,
  context_max: 1000,
  context_percent: 0.7,
  cost_status: "unknown",
  last_turn_latency_ms: 5,
  latency_ms: 5,
};

function session(over: Partial<SessionDoc> = {}): SessionDoc {
  return {
    _id: uid("ses"),
    orgId: "org_contract",
    agentId: "agt_contract",
    agentVersion: 1,
    subjectId: "sub",
    role: null,
    title: null,
    titleSource: null,
    yoloMode: false,
    metadata: { a: "1", b: 2 },
    status: "idle",
    statusVersion: 0,
    usage: null,
    createdAt: AT,
    updatedAt: AT,
    ...over,
  };
}

/** A session as stored: metadata as JSON text, the status and usage as projections. */
function storedSession(d: SessionDoc) {
  const { status, statusVersion, usage, ...rest } = d;
  return {
    ...rest,
    metadata: { json: JSON.stringify(d.metadata) },
    projected: { version: statusVersion, status },
    usageProjected: { version: statusVersion, usage },
    generatedTitle: null,
  };
}

function config(metadata: AgentConfig["metadata"], schema: Record<string, unknown> = { type: "object", properties: { q: { type: "string" } } }): AgentConfig {
  const tool = {
    type: "custom_tool" as const,
    name: "lookup",
    description: "Looks up.",
    input_schema: schema,
    enabled: true,
    permissionPolicy: { type: "always_ask" as const },
  };
  return { name: "Contract", modelName: "mock/echo", systemPrompt: "You help.", skills: [], tools: [tool], roles: [], mcpServers: [], metadata };
}

/** A version as stored: metadata and input schemas as JSON text. */
function storedConfig(c: AgentConfig) {
  return {
    ...c,
    metadata: { json: JSON.stringify(c.metadata) },
    tools: c.tools.map((x) => (x.type === "custom_tool" ? { ...x, input_schema: { json: JSON.stringify(x.input_schema) } } : x)),
  };
}

export const sessionAgentCases: ContractCase[] = [
  {
    title: "SessionStore insert and update: a metadata key renamed to the same value lands; title, yoloMode and budget",
    sites: ["SessionStore.insert", "SessionStore.update"],
    async run(t) {
      const s = new SessionStore(t.db);
      const doc = session();
      await s.insert(doc);
      await expectDoc(t, "sessions", doc._id, storedSession(doc));
      await s.update(doc.orgId, doc._id, { metadata: { c: "1", b: 2 } });
      const renamed = { ...storedSession(doc), metadata: { json: JSON.stringify({ c: "1", b: 2 }) }, updatedAt: any.date };
      await expectDoc(t, "sessions", doc._id, renamed);
      await s.update(doc.orgId, doc._id, { title: "T", titleSource: "caller", yoloMode: true, budgetUsd: 2.5 });
      await expectDoc(t, "sessions", doc._id, { ...renamed, title: "T", titleSource: "caller", yoloMode: true, budgetUsd: 2.5 });
      expect((await s.get(doc.orgId, doc._id))!.metadata).to.deep.equal({ c: "1", b: 2 });
    },
  },
  {
    title: "SessionStore.projectState: $max keeps the later version of the status and of the usage",
    sites: ["SessionStore.projectState"],
    async run(t) {
      const s = new SessionStore(t.db);
      const doc = session();
      await s.insert(doc);
      await s.projectState(doc._id, { status: { version: 5, status: "running" } });
      await s.projectState(doc._id, { status: { version: 4, status: "idle" }, usage: { version: 6, usage: USAGE } });
      await s.projectState(doc._id, { usage: { version: 2, usage: null } });
      await expectDoc(t, "sessions", doc._id, {
        ...storedSession(doc),
        projected: { version: 5, status: "running" },
        usageProjected: { version: 6, usage: USAGE },
        updatedAt: any.date,
      });
    },
  },
  {
    title: "SessionStore.projectStates: one command writes several records, each by $max",
    sites: ["SessionStore.projectStates"],
    async run(t) {
      const s = new SessionStore(t.db);
      const [a, b] = [session(), session()];
      await s.insert(a);
      await s.insert(b);
      await s.projectState(b._id, { status: { version: 9, status: "idle" } });
      const written = await s.projectStates([
        { sessionId: a._id, projection: { status: { version: 3, status: "running" }, usage: { version: 3, usage: USAGE } } },
        { sessionId: b._id, projection: { status: { version: 7, status: "running" } } },
      ]);
      expect([...written].sort()).to.deep.equal([a._id, b._id].sort());
      await expectDoc(t, "sessions", a._id, {
        ...storedSession(a),
        projected: { version: 3, status: "running" },
        usageProjected: { version: 3, usage: USAGE },
        updatedAt: any.date,
      });
      await expectDoc(t, "sessions", b._id, { ...storedSession(b), projected: { version: 9, status: "idle" }, updatedAt: any.date });
    },
  },
  {
    // FerretDB v1.24 unpatched held each update's query connection while it took another to write: a bulk
    // of 50 updates, or 50 at once, held its whole PostgreSQL pool (50) and it answered nothing again.
    title: "SessionStore.projectStates and projectState, more at once than FerretDB's PostgreSQL pool has connections: every record lands",
    sites: ["SessionStore.projectStates", "SessionStore.projectState"],
    async run(t) {
      const s = new SessionStore(t.db);
      const docs = Array.from({ length: 120 }, () => session());
      for (const doc of docs) await s.insert(doc);
      await s.projectStates(docs.map((d) => ({ sessionId: d._id, projection: { status: { version: 2, status: "running" } } })));
      await Promise.all(docs.map((d) => s.projectState(d._id, { status: { version: 3, status: "idle" } })));
      for (const doc of docs)
        await expectDoc(t, "sessions", doc._id, { ...storedSession(doc), projected: { version: 3, status: "idle" }, updatedAt: any.date });
    },
  },
  {
    title: "SessionStore setGeneratedTitle and delete: the first title tells, beside the caller's",
    sites: ["SessionStore.setGeneratedTitle", "SessionStore.delete"],
    async run(t) {
      const s = new SessionStore(t.db);
      const doc = session();
      await s.insert(doc);
      expect(await s.setGeneratedTitle(doc._id, "First")).to.equal(true);
      expect(await s.setGeneratedTitle(doc._id, "Second")).to.equal(false);
      await expectDoc(t, "sessions", doc._id, { ...storedSession(doc), generatedTitle: "Second", updatedAt: any.date });
      expect(await s.delete("org_other", doc._id)).to.equal(false);
      expect(await s.delete(doc.orgId, doc._id)).to.equal(true);
      await expectDoc(t, "sessions", doc._id, null);
    },
  },
  {
    title: "migrate: a record from before the projection gets one by $max; the marker is upserted",
    sites: ["migrations.migrateStatusProjections", "migrations.migrate"],
    async run(t) {
      const legacy = { _id: uid("ses"), orgId: "org_contract", status: "running", statusVersion: 3, metadata: { a: 1 } };
      await t.raw.collection("sessions").insertOne(legacy as never);
      await migrate(t.db);
      await expectDoc(t, "sessions", legacy._id, { ...legacy, projected: { version: 3, status: "running" } });
      await expectDoc(t, "migrations", "sessions.projected", { _id: "sessions.projected", at: any.date });
    },
  },
  {
    title:
      "AgentStore create and publish: versions inserted, the pointer moved forward with the version embedded, a renamed metadata key and rate limits landing",
    sites: ["AgentStore.create", "AgentStore.publish", "AgentStore.pointAt", "AgentStore.update"],
    async run(t) {
      const s = new AgentStore(t.db, deps.turns);
      const limits = { conversationsPerMinute: 5, messagesPerMinute: 100 };
      const agent = await s.create("org_contract", config({ a: "x" }), limits);
      const v1 = {
        _id: versionId(agent._id, 1),
        agentId: agent._id,
        orgId: "org_contract",
        version: 1,
        createdAt: any.date,
        ...storedConfig(config({ a: "x" })),
      };
      await expectDoc(t, "agent_versions", v1._id, v1);
      const made = {
        _id: agent._id,
        orgId: "org_contract",
        status: "active",
        rateLimits: limits,
        createdAt: any.date,
        updatedAt: any.date,
        version: 1,
        current: v1,
      };
      await expectDoc(t, "agents", agent._id, made);
      const next = config({ b: "x" }, { type: "object", properties: { r: { type: "string" } } });
      const published = await s.publish(agent, next, { conversationsPerMinute: 6, messagesPerMinute: 100 });
      expect(published.ok).to.equal(true);
      const v2 = { ...v1, _id: versionId(agent._id, 2), version: 2, ...storedConfig(next) };
      await expectDoc(t, "agent_versions", v2._id, v2);
      await expectDoc(t, "agents", agent._id, { ...made, version: 2, current: v2, rateLimits: { conversationsPerMinute: 6, messagesPerMinute: 100 } });
      expect(await s.publish(agent, config({ c: "x" }))).to.deep.equal({ ok: false, reason: "conflict", currentVersion: 2 });
      expect((await s.get("org_contract", agent._id))!.current.metadata).to.deep.equal({ b: "x" });
    },
  },
  {
    title: "AgentStore setRateLimits (dotted paths), setSubjectBudget, archive and delete",
    sites: ["AgentStore.update", "AgentStore.delete"],
    async run(t) {
      const s = new AgentStore(t.db, deps.turns);
      const agent = await s.create("org_contract", config({}), { conversationsPerMinute: 5, messagesPerMinute: 100 });
      await s.setRateLimits("org_contract", agent._id, { messagesPerMinute: 7 });
      await s.setSubjectBudget("org_contract", agent._id, 1.25);
      await s.archive("org_contract", agent._id);
      const v1 = { _id: versionId(agent._id, 1), agentId: agent._id, orgId: "org_contract", version: 1, createdAt: any.date, ...storedConfig(config({})) };
      const expected = {
        _id: agent._id,
        orgId: "org_contract",
        status: "archived",
        rateLimits: { conversationsPerMinute: 5, messagesPerMinute: 7 },
        subjectBudgetUsd: 1.25,
        createdAt: any.date,
        updatedAt: any.date,
        version: 1,
        current: v1,
      };
      await expectDoc(t, "agents", agent._id, expected);
      expect(await s.delete("org_contract", agent._id)).to.equal(true);
      await expectDoc(t, "agents", agent._id, null);
      await expectDoc(t, "agent_versions", v1._id, null);
    },
  },
  {
    title: "AgentVaultStore replace and detachVault: the set replaced under its token, updatedAt moved forward by $max, a vault pulled from every agent",
    sites: ["AgentVaultStore.replace", "AgentVaultStore.detachVault"],
    async run(t) {
      const s = new AgentVaultStore(t.db, deps.changes);
      const [a, b, other] = [uid("agt"), uid("agt"), uid("agt")];
      const org = uid("org");
      await t.raw.collection("agents").insertMany([
        { _id: a, orgId: org, updatedAt: AT },
        { _id: b, orgId: org, vaultIds: ["vlt_1"], updatedAt: AT },
        { _id: other, orgId: "org_other", vaultIds: ["vlt_1"], updatedAt: AT },
      ] as never[]);
      const replaced = await s.replace(org, a, { vaultIds: [], updatedAt: AT }, AT, ["vlt_1", "vlt_2"]);
      expect(replaced).to.include.keys("vaultIds", "updatedAt");
      expect(await s.replace(org, a, { vaultIds: [], updatedAt: AT }, AT, ["vlt_3"]), "the token is taken").to.equal("stale");
      await expectDoc(t, "agents", a, { _id: a, orgId: org, vaultIds: ["vlt_1", "vlt_2"], updatedAt: any.date });
      await expectDoc(t, "agent_vault_claims", `${a}@${AT.toISOString()}`, { _id: `${a}@${AT.toISOString()}`, at: any.date });
      await s.detachVault(org, "vlt_1");
      await expectDoc(t, "agents", a, { _id: a, orgId: org, vaultIds: ["vlt_2"], updatedAt: any.date });
      await expectDoc(t, "agents", b, { _id: b, orgId: org, vaultIds: [], updatedAt: any.date });
      await expectDoc(t, "agents", other, { _id: other, orgId: "org_other", vaultIds: ["vlt_1"], updatedAt: AT });
      const after = await t.raw.collection("agents").findOne({ _id: b as never });
      expect(after!.updatedAt.getTime()).to.be.greaterThan(AT.getTime());
    },
  },
];
