/** Store contract: automations, their runs, and credit ledgers, read back exactly. */
import { expect } from "chai";
import { countsOf, type RunSummary } from "../../src/automations/domain/automations.js";
import { AutomationRunStore, type RunDoc } from "../../src/automations/store/automation-runs.js";
import { AutomationStore, type AutomationDoc } from "../../src/automations/store/automations.js";
import type { CreditHead } from "../../src/accounts/domain/credits.js";
import { CreditStore } from "../../src/accounts/store/credits.js";
import { any, expectDoc, uid, type ContractCase } from "./target.js";

const AT = new Date("2026-01-02T03:04:05.000Z");
const later = (ms: number) => new Date(AT.getTime() + ms);

function automation(): AutomationDoc {
  return {
    _id: uid("aut"),
    orgId: "org_contract",
    agentId: "agt_contract",
    subjectId: "sub",
    name: null,
    prompt: "Report.",
    skills: ["a"],
    schedule: { kind: "interval", everyMs: 60_000, anchor: AT.getTime() },
    repeat: null,
    enabled: true,
    paused: false,
    completedOccurrences: 0,
    lastOccurrenceAt: null,
    nextRunAt: later(60_000),
    runCount: 0,
    failedRunCount: 0,
    lastRun: null,
    revision: 1,
    createdAt: AT,
    updatedAt: AT,
  };
}

const summary = (at: Date, status: RunSummary["status"]): RunSummary => ({
  id: uid("run"),
  at,
  status,
  sessionId: status === "failed" ? null : uid("ses"),
  error: status === "failed" ? "boom" : null,
});

export const automationCases: ContractCase[] = [
  {
    title: "AutomationStore insert and change: a schedule of another kind and skills replaced over the revision read; a stale revision writes nothing",
    sites: ["AutomationStore.insert", "AutomationStore.change", "AutomationStore.delete"],
    async run(t) {
      const s = new AutomationStore(t.db);
      const doc = automation();
      await s.insert(doc);
      await expectDoc(t, "automations", doc._id, doc);
      const set = { schedule: { kind: "cron" as const, expression: "0 * * * *", timezone: "UTC" }, skills: ["b", "a"], paused: true, name: "Hourly" };
      expect(await s.change(doc._id, 1, set, later(1))).to.not.equal(null);
      expect(await s.change(doc._id, 1, { prompt: "lost" }, later(2))).to.equal(null);
      await expectDoc(t, "automations", doc._id, { ...doc, ...set, revision: 2, updatedAt: later(1) });
      expect(await s.delete(doc._id)).to.equal(true);
      await expectDoc(t, "automations", doc._id, null);
    },
  },
  {
    title: "AutomationStore occurrences: settled once, counted once, advanced only from its time, manual runs counted",
    sites: ["AutomationStore.settleOccurrence", "AutomationStore.countOccurrence", "AutomationStore.advance", "AutomationStore.countManual"],
    async run(t) {
      const s = new AutomationStore(t.db);
      const doc = automation();
      await s.insert(doc);
      const [s1, r1, n1] = [later(60_000), summary(later(61_000), "succeeded"), later(120_000)];
      expect(await s.settleOccurrence(doc._id, 1, s1, r1, countsOf({ status: "succeeded", sessionId: r1.sessionId! }, true), n1)).to.not.equal(null);
      expect(await s.settleOccurrence(doc._id, 2, s1, r1, { runCount: 1 }, n1), "counted already").to.equal(null);
      let expected: AutomationDoc = {
        ...doc,
        lastOccurrenceAt: s1,
        lastRun: r1,
        nextRunAt: n1,
        updatedAt: r1.at,
        runCount: 1,
        completedOccurrences: 1,
        revision: 2,
      };
      await expectDoc(t, "automations", doc._id, expected);
      await s.countOccurrence(doc._id, s1, r1, { runCount: 1 });
      await expectDoc(t, "automations", doc._id, expected);
      const [s2, r2] = [later(120_000), summary(later(121_000), "failed")];
      await s.countOccurrence(doc._id, s2, r2, countsOf({ status: "failed", sessionId: null, error: "boom" }, true));
      expected = { ...expected, lastOccurrenceAt: s2, lastRun: r2, updatedAt: r2.at, runCount: 2, failedRunCount: 1, revision: 3 };
      await expectDoc(t, "automations", doc._id, expected);
      const n2 = later(180_000);
      await s.advance(doc._id, n1, n2, later(122_000));
      await s.advance(doc._id, n1, later(240_000), later(123_000));
      expected = { ...expected, nextRunAt: n2, updatedAt: later(122_000), revision: 4 };
      await expectDoc(t, "automations", doc._id, expected);
      const r3 = summary(later(130_000), "succeeded");
      await s.countManual(doc._id, r3, countsOf({ status: "succeeded", sessionId: r3.sessionId! }, false));
      await expectDoc(t, "automations", doc._id, { ...expected, lastRun: r3, updatedAt: r3.at, runCount: 3, revision: 5 });
    },
  },
  {
    title: "AutomationRunStore open, finish and notified: opened once, finished once with its notice flag, the flag unset; removed with the automation",
    sites: ["AutomationRunStore.open", "AutomationRunStore.finish", "AutomationRunStore.notified", "AutomationRunStore.deleteFor"],
    async run(t) {
      const s = new AutomationRunStore(t.db);
      const automationId = uid("aut");
      const run: RunDoc = {
        _id: uid("run"),
        orgId: "org_contract",
        automationId,
        trigger: "schedule",
        scheduledFor: AT,
        status: "pending",
        sessionId: uid("ses"),
        sessionCreated: false,
        error: null,
        createdAt: AT,
        finishedAt: null,
      };
      expect((await s.open(run)).fresh).to.equal(true);
      expect(await s.open({ ...run, sessionId: "ses_other" })).to.deep.equal({ run, fresh: false });
      await expectDoc(t, "automation_runs", run._id, run);
      await s.finish(run, { status: "failed", sessionId: null, error: "boom" }, later(1));
      await s.finish(run, { status: "succeeded", sessionId: run.sessionId }, later(2));
      const finished = { ...run, status: "failed", sessionCreated: false, error: "boom", finishedAt: later(1) };
      await expectDoc(t, "automation_runs", run._id, { ...finished, notify: true });
      await s.notified(run._id);
      await expectDoc(t, "automation_runs", run._id, finished);
      await s.deleteFor(automationId);
      await expectDoc(t, "automation_runs", run._id, null);
    },
  },
  {
    title: "CreditStore.apply: a link inserted per entry, the account's head moved forward by an upserted $max, windows unset 16 links behind",
    sites: ["CreditStore.apply", "CreditStore.advance"],
    async run(t) {
      const s = new CreditStore(t.db);
      const orgId = uid("org");
      const heads: CreditHead[] = [];
      for (let i = 1; i <= 17; i++) heads.push((await s.apply(orgId, `grant:${i}`, "grant", 1_000 * i, true))!.head);
      expect((await s.apply(orgId, "grant:3", "grant", 3_000, true))!.applied, "applied before").to.equal(false);
      const link = (seq: number) => ({
        _id: `${orgId}:${seq}`,
        orgId,
        ...heads[seq - 1]!,
        entry: { id: `grant:${seq}`, kind: "grant", micros: 1_000 * seq, at: any.date },
      });
      const { recent: _r, grants: _g, ...first } = link(1);
      await expectDoc(t, "credit_ledger", `${orgId}:1`, first);
      await expectDoc(t, "credit_ledger", `${orgId}:2`, link(2));
      await expectDoc(t, "credit_ledger", `${orgId}:17`, link(17));
      await expectDoc(t, "credit_accounts", orgId, { _id: orgId, head: heads[16] });
      expect(heads[16]).to.include({ seq: 17, balanceMicros: 153_000 });
    },
  },
];
