/** What a deleted deployment leaves behind besides its threads: memories, skills, grants, automations, its webhook and deliveries. */
import type { AutomationQueue } from "../automations/redis/automation-queue.js";
import type { DeploymentWebhookStore } from "./store/webhooks.js";
import type { DeploymentDoc } from "./store/deployments.js";
import type { WebhookDeliveryStore } from "../webhooks/store/webhook-deliveries.js";
import type { AutomationRunStore } from "../automations/store/automation-runs.js";
import type { AutomationStore } from "../automations/store/automations.js";
import type { MemoryStore } from "../agent-tools/store/memories.js";
import type { SubjectSkillStore } from "../agent-tools/store/subject-skills.js";
import type { ToolGrantStore } from "../worker/store/tool-grants.js";
import type { AgentLeftovers } from "./provisioning.js";

export class DeploymentLeftovers implements AgentLeftovers {
  constructor(
    private readonly stores: {
      memories: MemoryStore;
      skills: SubjectSkillStore;
      grants: ToolGrantStore;
      automations: AutomationStore;
      runs: AutomationRunStore;
      queue: AutomationQueue;
      hooks: DeploymentWebhookStore;
      deliveries: WebhookDeliveryStore;
    },
  ) {}

  async purge(doc: DeploymentDoc): Promise<void> {
    const { orgId, agentId } = doc;
    const { memories, skills, grants, automations, runs, queue, hooks, deliveries } = this.stores;
    for (;;) {
      const page = await automations.list(orgId, { agentId }, { limit: 100, offset: 0 });
      for (const a of page.items) {
        await runs.deleteFor(a._id);
        await queue.forget(a._id);
        await automations.delete(a._id);
      }
      if (!page.hasMore) break;
    }
    await Promise.all([
      memories.deleteForAgent(orgId, agentId),
      skills.deleteForAgent(orgId, agentId),
      grants.deleteForAgent(orgId, agentId),
      hooks.remove(doc._id),
      deliveries.removeFor(doc._id),
    ]);
  }
}
