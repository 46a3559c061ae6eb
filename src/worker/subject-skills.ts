/**
 * The summaries of each subject's own skills, cached in the worker and checked against the subject's
 * skill epoch (`src/agent-tools/redis/skill-epochs.ts`) at every use: a warm turn reads one Redis value, not
 * MongoDB, and still sees a change made a moment before by any worker. The epoch is read before the
 * list, so a change that lands in between leaves an entry whose epoch is already old (read again next
 * time), never a new epoch on an old list.
 */
import type { SkillSummary } from "../agent-tools/domain/skills.js";
import { Lru } from "../lru.js";
import type { SkillEpochs } from "../agent-tools/redis/skill-epochs.js";
import type { SkillScope, SubjectSkillStore } from "../agent-tools/store/subject-skills.js";

/** Subjects remembered: most have no skills (an empty entry); at the bound, ~100 names and summary lines. */
const CAPACITY = 1_000;

interface Entry {
  epoch: string;
  skills: SkillSummary[];
}

export class SubjectSkillCache {
  private readonly entries = new Lru<string, Entry>(CAPACITY);

  constructor(
    private readonly store: SubjectSkillStore,
    private readonly epochs: SkillEpochs,
  ) {}

  /** The scope's skills, by name. */
  async of(scope: SkillScope): Promise<SkillSummary[]> {
    const key = JSON.stringify([scope.orgId, scope.agentId, scope.subjectId]);
    const epoch = await this.epochs.current(scope);
    const cached = this.entries.get(key);
    if (cached && cached.epoch === epoch) return cached.skills;
    const skills = await this.store.list(scope);
    this.entries.set(key, { epoch, skills });
    return skills;
  }
}
