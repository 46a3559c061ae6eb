/**
 * Deployment workspaces (`src/deployments/workspace.ts`): made at provisioning, with the sandbox
 * image on the engine when the deployment gets the `docker` backend; at teardown the deployment's
 * processes and containers end and the workspace is removed, or moved under `.snapshots/` and kept for
 * the retention period; a sweep removes expired snapshots.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../log.js";
import type { DeploymentDoc } from "./store/deployments.js";
import type { SnapshotStore } from "./store/workspace-snapshots.js";
import { AppError } from "../errors.js";
import { endDeploymentProcesses, prepareDeploymentWorkspace, removeDeploymentWorkspace, sandboxBackend, snapshotDeploymentWorkspace } from "./workspace.js";
import type { DockerEngine } from "../agent-tools/sandbox/docker.js";
import type { DeploymentWorkspaces } from "./provisioning.js";

export class LocalWorkspaces implements DeploymentWorkspaces {
  constructor(
    private readonly root: string,
    private readonly docker: DockerEngine | null,
    private readonly snapshots: SnapshotStore,
    private readonly retentionMs: number,
    private readonly logger: Logger,
  ) {}

  private get snapshotRoot(): string {
    return join(this.root, ".snapshots");
  }

  async prepare(doc: DeploymentDoc): Promise<void> {
    await prepareDeploymentWorkspace(this.root, doc._id);
    if (sandboxBackend(doc.sandbox, this.docker) !== "docker") return;
    try {
      await this.docker!.ensureImage();
    } catch (err) {
      // The deployment's error: its commands could not start (retried by any update).
      throw new AppError("upstream_failed", err instanceof Error ? err.message : String(err), {}, err);
    }
  }

  /** Ends every process the deployment still runs on this machine, then removes or snapshots its workspace. */
  async dispose(doc: DeploymentDoc, retain: boolean): Promise<void> {
    await endDeploymentProcesses(doc._id, this.docker);
    if (!retain) {
      await removeDeploymentWorkspace(this.root, doc._id);
      return;
    }
    const now = new Date();
    // Recorded first, with its expiry: no snapshot exists that the sweep does not know of.
    await this.snapshots.record({
      _id: doc._id,
      orgId: doc.orgId,
      customerId: doc.customerId,
      path: join(this.snapshotRoot, doc._id),
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.retentionMs),
    });
    await snapshotDeploymentWorkspace(this.root, doc._id, this.snapshotRoot);
  }

  /** Removes snapshots past their retention; answers how many. */
  async sweep(now: Date, limit = 100): Promise<number> {
    const expired = await this.snapshots.expired(now, limit);
    for (const s of expired) {
      await rm(s.path, { recursive: true, force: true, maxRetries: 2 });
      await this.snapshots.remove(s._id);
      this.logger.info("workspace snapshot expired and removed", { deploymentId: s._id });
    }
    return expired.length;
  }
}
