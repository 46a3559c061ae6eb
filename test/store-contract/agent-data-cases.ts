/** Store contract: what agents keep per subject (skills, grants, memories), sessions' todo lists and workspace snapshots, read back exactly. */
import { expect } from "chai";
import { MemoryStore } from "../../src/agent-tools/store/memories.js";
import { SubjectSkillStore } from "../../src/agent-tools/store/subject-skills.js";
import { SnapshotStore } from "../../src/deployments/store/workspace-snapshots.js";
import { TodoStore } from "../../src/agent-tools/store/todos.js";
import { ToolGrantStore } from "../../src/worker/store/tool-grants.js";
import { any, deps, expectDoc, uid, type ContractCase } from "./target.js";

const AT = new Date("2026-01-02T03:04:05.000Z");
const scopeOf = () => ({ orgId: "org_contract", agentId: uid("agt"), subjectId: "sub" });

export const agentDataCases: ContractCase[] = [
  {
    title: "SubjectSkillStore create, replace (guarded by revision), remove and deleteForAgent",
    sites: ["SubjectSkillStore.create", "SubjectSkillStore.replace", "SubjectSkillStore.remove", "SubjectSkillStore.deleteForAgent"],
    async run(t) {
      const s = new SubjectSkillStore(t.db, deps.changes);
      const scope = scopeOf();
      const id = JSON.stringify([scope.orgId, scope.agentId, scope.subjectId, "notes"]);
      expect(await s.create(scope, { name: "notes", summary: "Notes.", content: "v1" })).to.equal(true);
      expect(await s.create(scope, { name: "notes", summary: "Again.", content: "v0" })).to.equal(false);
      const made = { _id: id, ...scope, name: "notes", content: "v1", revision: 1, summary: "Notes.", createdAt: any.date, updatedAt: any.date };
      await expectDoc(t, "subject_skills", id, made);
      expect(await s.replace(scope, { name: "notes", summary: "Notes 2.", content: "v2" }, 1)).to.equal(true);
      expect(await s.replace(scope, { name: "notes", summary: "Lost.", content: "lost" }, 1), "over a revision that moved on").to.equal(false);
      await expectDoc(t, "subject_skills", id, { ...made, content: "v2", summary: "Notes 2.", revision: 2 });
      expect(await s.replace(scope, { name: "notes", summary: "Notes 3.", content: "v3" })).to.equal(true);
      await expectDoc(t, "subject_skills", id, { ...made, content: "v3", summary: "Notes 3.", revision: 3 });
      expect(await s.remove(scope, "notes")).to.equal(true);
      await expectDoc(t, "subject_skills", id, null);
      await s.create(scope, { name: "other", summary: "Other.", content: "x" });
      await s.deleteForAgent(scope.orgId, scope.agentId);
      expect(await s.count(scope)).to.equal(0);
    },
  },
  {
    title: "ToolGrantStore grant (twice: one grant) and deleteForAgent",
    sites: ["ToolGrantStore.grant", "ToolGrantStore.deleteForAgent"],
    async run(t) {
      const s = new ToolGrantStore(t.db);
      const scope = scopeOf();
      await s.grant(scope, "bash");
      await s.grant(scope, "bash");
      const id = JSON.stringify([scope.orgId, scope.agentId, scope.subjectId, "bash"]);
      await expectDoc(t, "tool_grants", id, { _id: id, ...scope, tool: "bash", createdAt: any.date });
      await s.deleteForAgent(scope.orgId, scope.agentId);
      await expectDoc(t, "tool_grants", id, null);
    },
  },
  {
    title: "MemoryStore add, remove (in its scope only) and deleteForAgent",
    sites: ["MemoryStore.add", "MemoryStore.remove", "MemoryStore.deleteForAgent"],
    async run(t) {
      const s = new MemoryStore(t.db);
      const scope = scopeOf();
      const [a, b] = [await s.add(scope, "first"), await s.add(scope, "second")];
      await expectDoc(t, "memories", a, { _id: a, ...scope, content: "first", createdAt: any.date });
      expect(await s.remove({ ...scope, subjectId: "other" }, a)).to.equal(false);
      expect(await s.remove(scope, a)).to.equal(true);
      await expectDoc(t, "memories", a, null);
      await s.deleteForAgent(scope.orgId, scope.agentId);
      await expectDoc(t, "memories", b, null);
    },
  },
  {
    title: "TodoStore.replace: the list replaced whole, upserted",
    sites: ["TodoStore.replace"],
    async run(t) {
      const s = new TodoStore(t.db);
      const id = uid("ses");
      await s.replace(id, [{ content: "a", status: "pending" }]);
      await expectDoc(t, "session_todos", id, { _id: id, items: [{ content: "a", status: "pending" }] });
      await s.replace(id, [
        { content: "pending", status: "a" },
        { content: "b", status: "done" },
      ]);
      await expectDoc(t, "session_todos", id, {
        _id: id,
        items: [
          { content: "pending", status: "a" },
          { content: "b", status: "done" },
        ],
      });
      await s.replace(id, []);
      await expectDoc(t, "session_todos", id, { _id: id, items: [] });
    },
  },
  {
    title: "SnapshotStore record (replaced whole, upserted) and remove",
    sites: ["SnapshotStore.record", "SnapshotStore.remove"],
    async run(t) {
      const s = new SnapshotStore(t.db);
      const doc = { _id: uid("dep"), orgId: "org_contract", customerId: "cus", path: "/snapshots/a", createdAt: AT, expiresAt: new Date(AT.getTime() + 1_000) };
      await s.record(doc);
      await s.record({ ...doc, path: "/snapshots/b" });
      await expectDoc(t, "workspace_snapshots", doc._id, { ...doc, path: "/snapshots/b" });
      await s.remove(doc._id);
      await expectDoc(t, "workspace_snapshots", doc._id, null);
    },
  },
];
