/** What a deleted deployment's agent leaves behind besides its threads: memories, skills, grants, automations. */
import type { AutomationQueue } from "../redis/automation-queue.js";
import type { AutomationRunStore } from "../store/automation-runs.js";
import type { AutomationStore } from "../store/automations.js";
import type { MemoryStore } from "../store/memories.js";
import type { SubjectSkillStore } from "../store/subject-skills.js";
import type { ToolGrantStore } from "../store/tool-grants.js";
import type { AgentLeftovers } from "./deployment-provisioning.js";

export class AgentLeftoversPurge implements AgentLeftovers {
  constructor(
    private readonly stores: {
      memories: MemoryStore;
      skills: SubjectSkillStore;
      grants: ToolGrantStore;
      automations: AutomationStore;
      runs: AutomationRunStore;
      queue: AutomationQueue;
    },
  ) {}

  async purge(orgId: string, agentId: string): Promise<void> {
    const { memories, skills, grants, automations, runs, queue } = this.stores;
    for (;;) {
      const page = await automations.list(orgId, { agentId }, { limit: 100, offset: 0 });
      for (const a of page.items) {
        await runs.deleteFor(a._id);
        await queue.forget(a._id);
        await automations.delete(a._id);
      }
      if (!page.hasMore) break;
    }
    await Promise.all([memories.deleteForAgent(orgId, agentId), skills.deleteForAgent(orgId, agentId), grants.deleteForAgent(orgId, agentId)]);
  }
}
