/**
 * Where a session's tools run: the one place that decides it, for the tool settler, the preparation
 * and the reaper.
 *   - An ordinary session: its own workspace `<root>/<ses_id>` and /tmp, its own user, in namespaces of
 *     its own when the worker can make them (`src/agent-tools/sandbox/isolation.ts`); the reaper removes the workspace
 *     when the session is deleted.
 *   - A deployment's thread (`deploymentId`): where its deployment says (`ThreadPlaces`, which the
 *     deployments module supplies at composition), given what this worker can isolate.
 */
import { prepareSessionWorkspace, sandboxUser, sessionTmpOf, workspaceOf, type ToolEnvironment, type ToolPlace } from "../agent-tools/sandbox/sandbox.js";
import type { ThreadPlaces } from "../agent-tools/sandbox/thread-places.js";
import type { ToolIsolation } from "../agent-tools/sandbox/tool-isolation.js";
import type { SessionFacts } from "../sessions/session-facts.js";

export interface PlacementDeps {
  workspaceRoot: string;
  /** What this worker gives tool processes: namespaces and each session's network, or why not. */
  isolation: Pick<ToolIsolation, "networks" | "unisolated">;
  /** Where deployment threads' tools run. */
  threads: ThreadPlaces;
}

const NO_VARIABLES: ToolEnvironment = { ok: true, env: {} };

export class Placements {
  constructor(private readonly deps: PlacementDeps) {}

  /** Where the session's tools run; null for a deployment's thread whose deployment is gone (or being deleted). */
  async of(session: Pick<SessionFacts, "_id" | "orgId" | "deploymentId">): Promise<ToolPlace | null> {
    const { deploymentId } = session;
    if (deploymentId) return this.deps.threads.of({ _id: session._id, orgId: session.orgId, deploymentId }, this.deps.isolation);
    const root = this.deps.workspaceRoot;
    const { networks, unisolated } = this.deps.isolation;
    const workspace = this.ownWorkspace(session._id)!;
    const user = sandboxUser(session._id);
    const isolated = networks && user;
    return {
      workspace,
      user,
      isolation: isolated ? { tmp: sessionTmpOf(workspace), hide: root } : null,
      network: isolated ? () => networks.lease(session._id, user) : null,
      unisolated,
      soleUser: true,
      prepare: () => prepareSessionWorkspace(workspace, user),
      environment: async () => NO_VARIABLES,
    };
  }

  /** Makes the session's workspace ahead of its first tool (a preparation hint): the deployment's for its threads. */
  async prepare(session: { id: string; deploymentId?: string | undefined }): Promise<void> {
    if (session.deploymentId) return this.deps.threads.prepare(session.deploymentId);
    const workspace = this.ownWorkspace(session.id);
    if (workspace) await prepareSessionWorkspace(workspace, sandboxUser(session.id));
  }

  /**
   * The workspace that is the session's alone, removed with it (null for a string that is not a session
   * id). A deployment's thread never has one there: its tools use the deployment's.
   */
  ownWorkspace(sessionId: string): string | null {
    return workspaceOf(this.deps.workspaceRoot, sessionId);
  }

  /** Ends the session's network on this worker (it was archived or deleted). */
  endNetwork(sessionId: string): void {
    this.deps.isolation.networks?.end(sessionId);
  }
}
