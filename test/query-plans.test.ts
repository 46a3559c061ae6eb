import { expect } from "chai";
import { configFromCreateBody, rateLimitsFrom, type AgentCreateBody } from "../src/agents/domain/agent-config.js";
import type { Usage } from "../src/sessions/domain/events.js";
import { newId } from "../src/ids.js";
import { AgentStore, type AgentDoc } from "../src/agents/store/agents.js";
import { MemoryStore } from "../src/agent-tools/store/memories.js";
import { ensureIndexes } from "../src/mongo/mongo.js";
import { OrganizationStore } from "../src/accounts/store/organizations.js";
import { SessionStore, type SessionDoc } from "../src/sessions/store/sessions.js";
import { TodoStore } from "../src/agent-tools/store/todos.js";
import { ToolGrantStore } from "../src/worker/store/tool-grants.js";
import { env } from "./support/hooks.js";
import { PlanProbe } from "./support/plans.js";
import { agentBody } from "./support/server.js";

/**
 * Every hot lookup and guarded write names its document through an index the server uses: on
 * MongoDB an index stage and no COLLSCAN, on FerretDB v1 a pushed-down filter (its only alternative is
 * reading every document of the collection). The stores run against the test database with documents
 * of several organizations present; what they send is captured and explained.
 */
describe("query plans of the hot lookups", () => {
  let probe: PlanProbe;
  let sessions: SessionStore;
  let agents: AgentStore;
  let agent: AgentDoc;
  let session: SessionDoc;
  const orgs = ["a", "b", "c"].map(() => newId("org"));
  const usage: Usage = {
    model: "mock/echo",
    input: 1,
    output: 1,
    cache_read: 0,
    cache_write: 0,
    reasoning: 0,
    total: 2,
    calls: 1,
    context_used: 2,
    context_max: 100,
    context_percent: 2,
    cost_status: "included",
    last_turn_latency_ms: 1,
    latency_ms: 1,
  };

  const sessionOf = (orgId: string, agentId: string): SessionDoc => ({
    _id: newId("ses"),
    orgId,
    agentId,
    agentVersion: 1,
    subjectId: newId("req"),
    role: null,
    title: null,
    titleSource: null,
    yoloMode: false,
    metadata: {},
    status: "idle",
    statusVersion: 0,
    usage: null,
    createdAt: new Date(),
    updatedAt: new Date(),
  });

  /** Every query `fn` sends is indexed, and it sends at least one. */
  async function expectIndexed(fn: () => Promise<unknown>): Promise<void> {
    const verdicts = await probe.verdicts(fn);
    expect(verdicts, "no query sent").to.not.be.empty;
    for (const v of verdicts) expect(v.indexed, `${v.command}: ${v.detail}`).to.equal(true);
  }

  before(async () => {
    probe = await PlanProbe.open(env.mongoUrl);
    await ensureIndexes(probe.db);
    sessions = new SessionStore(probe.db);
    agents = new AgentStore(probe.db, (_id, write) => write());
    const config = configFromCreateBody(agentBody() as AgentCreateBody);
    for (const orgId of orgs) {
      const created = await agents.create(orgId, config, rateLimitsFrom(undefined));
      for (let i = 0; i < 40; i++) await sessions.insert(sessionOf(orgId, created._id));
    }
    agent = await agents.create(orgs[0]!, config, rateLimitsFrom(undefined));
    const published = await agents.publish(agent, { ...config, systemPrompt: "Second." });
    if (!published.ok) throw new Error("publish refused");
    agent = published.agent;
    session = sessionOf(orgs[0]!, agent._id);
    await sessions.insert(session);
  });
  after(async () => probe.close());

  it("a session by id, in its organization and for a worker", async () => {
    await expectIndexed(() => sessions.get(session.orgId, session._id));
    await expectIndexed(() => sessions.byId(session._id));
    expect(await sessions.get(orgs[1]!, session._id), "another organization's session").to.equal(null);
  });

  it("a session's update and delete", async () => {
    await expectIndexed(() => sessions.update(session.orgId, session._id, { yoloMode: true }));
    const doomed = sessionOf(orgs[0]!, agent._id);
    await sessions.insert(doomed);
    expect(await sessions.delete(orgs[1]!, doomed._id), "another organization's session").to.equal(false);
    await expectIndexed(() => sessions.delete(doomed.orgId, doomed._id));
  });

  it("the projection of status and usage and the generated title", async () => {
    await expectIndexed(() => sessions.projectState(session._id, { status: { version: 3, status: "running" } }));
    await expectIndexed(() => sessions.projectState(session._id, { status: { version: 4, status: "idle" }, usage: { version: 4, usage } }));
    expect((await sessions.byId(session._id))!.usage).to.deep.equal(usage);
    await expectIndexed(() => sessions.setGeneratedTitle(session._id, "A title"));
  });

  it("an agent by id, its settings and archive", async () => {
    await expectIndexed(() => agents.get(agent.orgId, agent._id));
    expect(await agents.get(orgs[1]!, agent._id), "another organization's agent").to.equal(null);
    await expectIndexed(() => agents.setRateLimits(agent.orgId, agent._id, { messagesPerMinute: 50 }));
    await expectIndexed(() => agents.archive(agent.orgId, agent._id));
  });

  it("an agent version by id: a worker's, and an older one through the API", async () => {
    await expectIndexed(() => agents.getVersionById(agent._id, 1));
    await expectIndexed(() => agents.getVersion(agent, 1));
    expect((await agents.getVersionById(agent._id, 1))?.version).to.equal(1);
  });

  it("an API key by its hash, on a first request", async () => {
    const organizations = new OrganizationStore(probe.db);
    for (const orgId of orgs) await organizations.createKey(orgId);
    const { key } = await organizations.createKey(orgs[2]!);
    const fresh = new OrganizationStore(probe.db);
    await expectIndexed(() => fresh.authenticate(key));
    expect((await fresh.authenticate(key))?.orgId).to.equal(orgs[2]);
  });

  it("a session's todo list", async () => {
    const todos = new TodoStore(probe.db);
    await expectIndexed(() => todos.replace(session._id, [{ content: "x", status: "pending" }]));
    await expectIndexed(() => todos.get(session._id));
  });

  describe("lists and scoped reads (MongoDB: FerretDB v1 pushes down no filter but _id)", () => {
    before(function () {
      if (probe.ferret) this.skip();
    });

    it("sessions, agents and versions lists", async () => {
      await expectIndexed(() => sessions.list(session.orgId, {}, { limit: 20, offset: 0 }));
      await expectIndexed(() =>
        sessions.list(session.orgId, { agentId: agent._id, subjectId: session.subjectId, status: "idle" }, { limit: 20, offset: 0 }, [session._id]),
      );
      await expectIndexed(() => agents.list(agent.orgId, { limit: 20, offset: 0, status: "active" }));
      await expectIndexed(() => agents.listVersions(agent, { limit: 20, offset: 0 }));
    });

    it("tool grants and memories of a subject", async () => {
      const scope = { orgId: session.orgId, agentId: agent._id, subjectId: session.subjectId };
      await new ToolGrantStore(probe.db).grant(scope, "bash");
      await expectIndexed(() => new ToolGrantStore(probe.db).always(scope));
      await expectIndexed(() => new MemoryStore(probe.db).list(scope));
    });
  });
});
