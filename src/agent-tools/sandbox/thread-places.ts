/**
 * Where a deployment thread's tools run, as the worker's placement (`src/worker/placement.ts`) asks it.
 * The core declares what it needs here; the deployments module answers it (its workspaces, sandbox
 * settings and secrets), handed in at composition, so the worker never reads a deployment record itself.
 */
import type { ToolPlace } from "./sandbox.js";
import type { ToolIsolation } from "./tool-isolation.js";

export interface ThreadPlaces {
  /** Where the thread's tools run, given what this worker can isolate; null when its deployment is gone (or being deleted). */
  of(thread: { _id: string; orgId: string; deploymentId: string }, isolation: Pick<ToolIsolation, "networks" | "unisolated">): Promise<ToolPlace | null>;
  /** Makes the deployment's workspace ahead of its threads' first tool (a preparation hint). */
  prepare(deploymentId: string): Promise<void>;
}
