/** Deployment records → the deployments interface's bodies (snake_case, as its document writes them). */
import type { DeploymentDoc } from "../store/deployments.js";

/** Where things are, as callers see them: the interface's address, and a workspace's path as its tools see it. */
export interface Placement {
  /** The interface's base address, e.g. `https://deploy.example.com` (no trailing slash). */
  baseUrl: string;
  workspacePathOf(d: DeploymentDoc): string;
}

function placed(d: DeploymentDoc, where: Placement) {
  return {
    deployment_id: d._id,
    customer_id: d.customerId,
    runtime: d.runtime,
    status: d.status,
    model: d.settings.model,
    thread_id: d.threadId,
    filesystem: { workspace_path: where.workspacePathOf(d), persistent: d.sandbox.persistentFilesystem },
    events: { transport: "sse" as const, url: `${where.baseUrl}/v1/deployments/${d._id}/events` },
  };
}

/** The create form: no `name`, no `created_at`. */
export const presentCreated = placed;

export function presentDeployment(d: DeploymentDoc, where: Placement) {
  return { ...placed(d, where), name: d.settings.name, created_at: d.createdAt.toISOString(), status_reason: d.statusReason };
}

export function presentSummary(d: DeploymentDoc) {
  return {
    deployment_id: d._id,
    customer_id: d.customerId,
    name: d.settings.name,
    runtime: d.runtime,
    status: d.status,
    model: d.settings.model,
    created_at: d.createdAt.toISOString(),
  };
}
