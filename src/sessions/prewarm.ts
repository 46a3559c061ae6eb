/**
 * Session preparation, the API side (the workers' side is `src/worker/preparer.ts`). A prewarm checks
 * the agent as session creation does, says in `reason` which of its MCP servers cannot be prepared
 * for their credential, and hints the workers at most once per (organization, agent, subject) per
 * window; a created session hints them at once. Neither creates a session, history or allowance use.
 */
import type { McpServerRef } from "../vaults/domain/mcp-connection-status.js";
import { serversToPrepare, unpreparedReason } from "./domain/preparation.js";
import { invalidState, notFound } from "../errors.js";
import type { Logger } from "../log.js";
import type { Preparations } from "./redis/preparation-hints.js";
import type { AgentStore } from "../agents/store/agents.js";
import type { SessionDoc } from "./store/sessions.js";
import type { AgentVaultService } from "../vaults/agent-vaults.js";

/** Repeated prewarms of one (organization, agent, subject) within this long hint the workers once. */
export const WARM_WINDOW_MS = 10_000;

export class PreparationService {
  constructor(
    private readonly agents: AgentStore,
    private readonly agentVaults: AgentVaultService,
    private readonly preparations: Preparations,
    private readonly log: Logger,
  ) {}

  /**
   * The prewarm's `reason` (null when nothing stands in the way). Only the agent's checks can fail the
   * prewarm: a status that cannot be read or a hint that cannot be published is logged, not answered,
   * since the prewarm is a hint and the first turn does without it.
   */
  async warm(orgId: string, agentId: string, subjectId: string): Promise<string | null> {
    const agent = await this.agents.get(orgId, agentId);
    if (!agent) throw notFound("agent");
    if (agent.status === "archived") throw invalidState("the agent is archived and accepts no new sessions");
    const [reason] = await Promise.all([
      this.reason(orgId, agentId, serversToPrepare(agent.current)).catch((err: unknown) => {
        this.log.warn("the prewarm could not read the agent's MCP server statuses", { agentId, err });
        return null;
      }),
      this.hint(orgId, agentId, agent.version, subjectId).catch((err: unknown) => this.log.warn("the prewarm hint could not be published", { agentId, err })),
    ]);
    return reason;
  }

  private async reason(orgId: string, agentId: string, servers: McpServerRef[]): Promise<string | null> {
    // Statuses cost a few reads of the vaults; an agent without MCP servers needs none.
    return servers.length === 0 ? null : unpreparedReason((await this.agentVaults.get(orgId, agentId)).servers, servers);
  }

  private async hint(orgId: string, agentId: string, agentVersion: number, subjectId: string): Promise<void> {
    if (await this.preparations.firstHint(orgId, agentId, subjectId, WARM_WINDOW_MS)) {
      await this.preparations.publish({ orgId, agentId, agentVersion, subjectId, session: null });
    }
  }

  /** Hints the workers of a session just created; not awaited by creation, and a hint lost costs only the head start. */
  sessionCreated(doc: SessionDoc): void {
    // A child thread's facts include its parent link, which a hint does not carry: its worker reads the record.
    const session = doc.thread
      ? null
      : { id: doc._id, role: doc.role, titled: doc.title !== null, ...(doc.deploymentId ? { deploymentId: doc.deploymentId } : {}) };
    this.preparations
      .publish({ orgId: doc.orgId, agentId: doc.agentId, agentVersion: doc.agentVersion, subjectId: doc.subjectId, session })
      .catch((err: unknown) => this.log.warn("the preparation hint of a new session could not be published", { sessionId: doc._id, err }));
  }
}
