/** Store contract: deployment records (`src/deployments/store/deployments.ts`, `deployment-secret-refs.ts`), read back exactly. */
import { expect } from "chai";
import { DEFAULT_FEATURES, DEFAULT_SANDBOX, type DeploymentSettings } from "../../src/deployments/domain/deployments.js";
import { DeploymentSecretRefs } from "../../src/deployments/store/secret-refs.js";
import { DeploymentStore, type DeploymentDoc, type StatusTransition } from "../../src/deployments/store/deployments.js";
import { any, deps, expectDoc, uid, type ContractCase, type Target } from "./target.js";

const AT = new Date("2026-01-02T03:04:05.000Z");
const settings = (secrets: Record<string, string>, over: Partial<DeploymentSettings> = {}): DeploymentSettings => ({
  name: "Contract",
  model: "mock/echo",
  systemPrompt: "You help.",
  mcpServers: [{ name: "docs", url: "https://mcp.example.com/a" }],
  skills: [],
  secrets,
  features: DEFAULT_FEATURES,
  ...over,
});
const pairs = (secrets: Record<string, string>) => Object.entries(secrets).map(([name, ref]) => ({ name, ref }));

function deployment(over: Partial<DeploymentDoc> = {}): DeploymentDoc {
  const id = uid("dep");
  return {
    _id: id,
    orgId: "org_contract",
    customerId: "cus_contract",
    runtime: "native",
    sandbox: DEFAULT_SANDBOX,
    settings: settings({ C: "sec_1" }),
    status: "ready",
    statusReason: null,
    transitions: [{ status: "provisioning", at: AT, reason: null }],
    agentId: `agt_${id}`,
    threadId: `ses_${id}`,
    revision: 1,
    leaseUntil: null,
    leaseOwner: null,
    deleting: null,
    createdAt: AT,
    updatedAt: AT,
    ...over,
  };
}

/** The record as stored: the secrets as pairs. */
const storedForm = (d: DeploymentDoc) => ({ ...d, settings: { ...d.settings, secrets: pairs(d.settings.secrets) } });
const store = (t: Target) => new DeploymentStore(t.db, deps.turns);

async function inserted(t: Target, over: Partial<DeploymentDoc> = {}): Promise<DeploymentDoc> {
  const doc = deployment(over);
  await store(t).insert(doc);
  return doc;
}

export const deploymentCases: ContractCase[] = [
  {
    title: "DeploymentStore.insert: the settings' secrets as {name, ref} pairs, read back as the map",
    sites: ["DeploymentStore.insert"],
    async run(t) {
      const doc = await inserted(t, { settings: settings({ C: "sec_1", D: "sec_2" }) });
      await expectDoc(t, "deployments", doc._id, storedForm(doc));
      expect(await store(t).byId(doc._id)).to.deep.equal(doc);
    },
  },
  {
    title: "DeploymentStore.changeSettings: a variable renamed to the same reference, two references swapped, a server renamed at the same URL",
    sites: ["DeploymentStore.changeSettings"],
    async run(t) {
      const doc = await inserted(t, { settings: settings({ C: "sec_1", D: "sec_2" }) });
      const renamed = settings({ E: "sec_1", D: "sec_2" });
      const first = await store(t).changeSettings(doc, renamed, false);
      const expected = { ...storedForm(doc), settings: { ...renamed, secrets: pairs(renamed.secrets) }, revision: 2, updatedAt: any.date };
      await expectDoc(t, "deployments", doc._id, expected);
      expect(first!.settings).to.deep.equal(renamed);
      const swapped = settings(
        { E: "sec_2", D: "sec_1" },
        { mcpServers: [{ name: "docs2", url: "https://mcp.example.com/a" }], features: { ...DEFAULT_FEATURES, memory: false } },
      );
      expect(await store(t).changeSettings(first!, swapped, false)).to.not.equal(null);
      await expectDoc(t, "deployments", doc._id, { ...expected, settings: { ...swapped, secrets: pairs(swapped.secrets) }, revision: 3 });
      // Over a revision that moved on: nothing written.
      expect(await store(t).changeSettings(first!, renamed, false)).to.equal(null);
      await expectDoc(t, "deployments", doc._id, { ...expected, settings: { ...swapped, secrets: pairs(swapped.secrets) }, revision: 3 });
    },
  },
  {
    title: "DeploymentStore.changeSettings on a record stored before the pairs (a map): read as the map, written as pairs",
    sites: ["DeploymentStore.changeSettings"],
    async run(t) {
      const old = deployment({ settings: settings({ C: "sec_1" }) });
      await t.raw.collection<DeploymentDoc>("deployments").insertOne(old);
      const refs = new DeploymentSecretRefs(t.db);
      expect(await store(t).byId(old._id)).to.deep.equal(old);
      expect((await refs.place(old._id))!.secrets).to.deep.equal({ C: "sec_1" });
      expect(await refs.referencing(old.orgId, "sec_1", 1000)).to.include(old._id);
      await store(t).changeSettings(old, settings({ E: "sec_1" }), false);
      await expectDoc(t, "deployments", old._id, { ...old, settings: { ...settings({}), secrets: pairs({ E: "sec_1" }) }, revision: 2, updatedAt: any.date });
      expect((await refs.place(old._id))!.secrets).to.deep.equal({ E: "sec_1" });
      expect(await refs.referencing(old.orgId, "sec_1", 1000)).to.include(old._id);
    },
  },
  {
    title: "DeploymentStore.changeSettings with reprovisioning: status, notice, and the transition appended, the latest 50 kept",
    sites: ["DeploymentStore.changeSettings"],
    async run(t) {
      const transitions: StatusTransition[] = Array.from({ length: 50 }, (_, i) => ({
        status: i % 2 ? "error" : "provisioning",
        at: new Date(AT.getTime() + i),
        reason: i % 2 ? `failed ${i}` : null,
      }));
      const doc = await inserted(t, { status: "error", statusReason: "failed 49", transitions });
      const next = settings({ C: "sec_1" }, { name: "Again" });
      const updated = await store(t).changeSettings(doc, next, true);
      const transition = { status: "provisioning", at: any.date, reason: null };
      await expectDoc(t, "deployments", doc._id, {
        ...storedForm(doc),
        settings: { ...next, secrets: pairs(next.secrets) },
        status: "provisioning",
        statusReason: null,
        notice: transition,
        transitions: [...transitions.slice(1), transition],
        revision: 2,
        updatedAt: any.date,
      });
      expect(updated!.transitions).to.have.length(50);
    },
  },
  {
    title: "DeploymentStore lease, renew, release and settle: the lease's fields, then the status with its notice and transition",
    sites: ["DeploymentStore.lease", "DeploymentStore.renew", "DeploymentStore.release", "DeploymentStore.settle"],
    async run(t) {
      const doc = await inserted(t, { status: "provisioning" });
      const until = new Date(Date.now() + 60_000);
      const s = store(t);
      expect(await s.lease(doc._id, "run-1", until, new Date())).to.include({ leaseOwner: "run-1" });
      expect(await s.lease(doc._id, "run-2", until, new Date()), "held").to.equal(null);
      await expectDoc(t, "deployments", doc._id, { ...storedForm(doc), leaseUntil: until, leaseOwner: "run-1" });
      const later = new Date(until.getTime() + 60_000);
      expect(await s.renew(doc._id, "run-1", later)).to.equal(true);
      expect(await s.renew(doc._id, "run-2", until)).to.equal(false);
      await expectDoc(t, "deployments", doc._id, { ...storedForm(doc), leaseUntil: later, leaseOwner: "run-1" });
      await s.release(doc._id, "run-1");
      await expectDoc(t, "deployments", doc._id, storedForm(doc));
      await s.lease(doc._id, "run-1", until, new Date());
      expect(await s.settle(doc._id, "run-2", 1, "ready", null), "not the holder").to.equal(false);
      expect(await s.settle(doc._id, "run-1", 1, "error", "boom")).to.equal(true);
      const transition = { status: "error", at: any.date, reason: "boom" };
      const settled = {
        ...storedForm(doc),
        status: "error",
        statusReason: "boom",
        notice: transition,
        transitions: [...doc.transitions, transition],
        updatedAt: any.date,
      };
      await expectDoc(t, "deployments", doc._id, settled);
      expect(await s.settle(doc._id, "run-1", 1, "ready", null), "settled already").to.equal(false);
      await expectDoc(t, "deployments", doc._id, settled);
    },
  },
  {
    title: "DeploymentStore.notified: the notice removed only while it is the one queued",
    sites: ["DeploymentStore.notified"],
    async run(t) {
      const notice = { status: "ready" as const, at: AT, reason: null };
      const doc = await inserted(t, { notice });
      await store(t).notified(doc._id, new Date(AT.getTime() + 1));
      await expectDoc(t, "deployments", doc._id, storedForm(doc));
      await store(t).notified(doc._id, AT);
      const { notice: _, ...without } = storedForm(doc);
      await expectDoc(t, "deployments", doc._id, without);
    },
  },
  {
    title: "DeploymentStore.markDeleting and remove: marked once, removed by the lease's holder only",
    sites: ["DeploymentStore.markDeleting", "DeploymentStore.remove"],
    async run(t) {
      const doc = await inserted(t, { leaseOwner: "run-9", leaseUntil: AT });
      expect(await store(t).markDeleting(doc.orgId, doc._id, true)).to.not.equal(null);
      expect(await store(t).markDeleting(doc.orgId, doc._id, false), "marked already").to.equal(null);
      await expectDoc(t, "deployments", doc._id, { ...storedForm(doc), deleting: { retainFilesystem: true, at: any.date } });
      expect(await store(t).remove(doc._id, "run-8")).to.equal(false);
      expect(await store(t).remove(doc._id, "run-9")).to.equal(true);
      await expectDoc(t, "deployments", doc._id, null);
    },
  },
  {
    title: "DeploymentStore.beginDream: the first dream, then one over the last read; never over a newer one",
    sites: ["DeploymentStore.beginDream"],
    async run(t) {
      const doc = await inserted(t);
      const [at1, at2] = [new Date(AT.getTime() + 1_000), new Date(AT.getTime() + 2_000)];
      expect(await store(t).beginDream(doc, "ses_d1", at1)).to.equal(true);
      expect(await store(t).beginDream(doc, "ses_d2", at2), "over a dream it did not read").to.equal(false);
      await expectDoc(t, "deployments", doc._id, { ...storedForm(doc), dreams: { lastAt: at1, threadIds: ["ses_d1"] } });
      expect(await store(t).beginDream((await store(t).byId(doc._id))!, "ses_d2", at2)).to.equal(true);
      await expectDoc(t, "deployments", doc._id, { ...storedForm(doc), dreams: { lastAt: at2, threadIds: ["ses_d1", "ses_d2"] } });
    },
  },
];
