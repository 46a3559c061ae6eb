/**
 * Skills an agent writes for one subject (the `skill_manage` tool), per (organization, agent, subject)
 * and name. A skill's `_id` is made of its scope and name, so a lookup by name (skill_view, patch, an
 * automation naming its skills) reads one document by `_id`, and a second create of a name is refused
 * by the `_id` itself. Each document keeps its summary line (given by the writer, from the front matter),
 * so listing reads no contents.
 */
import type { Collection, Db } from "mongodb";
import type { SkillSummary } from "../domain/skills.js";
import { isDuplicateKey } from "../../mongo/mongo.js";

export interface SkillScope {
  orgId: string;
  agentId: string;
  subjectId: string;
}

export interface SubjectSkill {
  name: string;
  content: string;
  /** Bumped by every change: a patch is written only over the revision it was computed from. */
  revision: number;
}

/** Told after every change to a scope's skills, so caches of them are dropped (`redis/skill-epochs.ts`). */
export interface SkillChanges {
  changed(scope: SkillScope): Promise<void>;
}

interface SkillDoc extends SkillScope, SubjectSkill {
  _id: string;
  summary: string;
  createdAt: Date;
  updatedAt: Date;
}

const idOf = (scope: SkillScope, name: string) => JSON.stringify([scope.orgId, scope.agentId, scope.subjectId, name]);
/** Exactly the scope's fields: a caller's object may carry more. */
const only = (scope: SkillScope): SkillScope => ({ orgId: scope.orgId, agentId: scope.agentId, subjectId: scope.subjectId });

export class SubjectSkillStore {
  private readonly skills: Collection<SkillDoc>;

  constructor(
    db: Db,
    private readonly changes: SkillChanges,
  ) {
    this.skills = db.collection<SkillDoc>("subject_skills");
  }
  /** Every subject's skills of the agent (its deployment was deleted). */
  async deleteForAgent(orgId: string, agentId: string): Promise<void> {
    await this.skills.deleteMany({ orgId, agentId });
  }

  /** Name and summary of each, by name. */
  async list(scope: SkillScope): Promise<SkillSummary[]> {
    const docs = await this.skills
      .find(only(scope), { projection: { name: 1, summary: 1 } })
      .sort({ name: 1 })
      .toArray();
    return docs.map((d) => ({ name: d.name, summary: d.summary }));
  }

  count(scope: SkillScope): Promise<number> {
    return this.skills.countDocuments(only(scope));
  }

  async get(scope: SkillScope, name: string): Promise<SubjectSkill | null> {
    const doc = await this.skills.findOne({ _id: idOf(scope, name) });
    return doc && { name: doc.name, content: doc.content, revision: doc.revision };
  }

  /** False when the scope already has a skill of that name. */
  async create(scope: SkillScope, skill: SkillSummary & { content: string }): Promise<boolean> {
    const { name, content, summary } = skill;
    const now = new Date();
    try {
      await this.skills.insertOne({ _id: idOf(scope, name), ...only(scope), name, content, revision: 1, summary, createdAt: now, updatedAt: now });
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
    await this.changes.changed(scope);
    return true;
  }

  /**
   * Replaces the content; with `revision`, only if the skill is still at it (a compare-and-set for
   * patches). False when there is no such skill (or it moved on from `revision`).
   */
  async replace(scope: SkillScope, skill: SkillSummary & { content: string }, revision?: number): Promise<boolean> {
    const { name, content, summary } = skill;
    const filter = revision === undefined ? { _id: idOf(scope, name) } : { _id: idOf(scope, name), revision };
    const res = await this.skills.updateOne(filter, { $set: { content, summary, updatedAt: new Date() }, $inc: { revision: 1 } });
    if (res.matchedCount === 0) return false;
    await this.changes.changed(scope);
    return true;
  }

  async remove(scope: SkillScope, name: string): Promise<boolean> {
    if ((await this.skills.deleteOne({ _id: idOf(scope, name) })).deletedCount === 0) return false;
    await this.changes.changed(scope);
    return true;
  }
}
