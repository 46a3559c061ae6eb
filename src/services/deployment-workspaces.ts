/**
 * Deployment workspaces on the local backend: one directory per deployment under the workspace root,
 * made at provisioning. At teardown it is removed, or moved under `.snapshots/` and kept for the
 * retention period; a sweep removes expired snapshots.
 */
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../log.js";
import type { DeploymentDoc } from "../store/deployments.js";
import type { SnapshotStore } from "../store/workspace-snapshots.js";
import { deploymentWorkspaceOf } from "../tools/deployment-files.js";
import type { DeploymentWorkspaces } from "./deployment-provisioning.js";

export class LocalWorkspaces implements DeploymentWorkspaces {
  constructor(
    private readonly root: string,
    private readonly snapshots: SnapshotStore,
    private readonly retentionMs: number,
    private readonly logger: Logger,
  ) {}

  private dirOf(id: string): string {
    const dir = deploymentWorkspaceOf(this.root, id);
    if (!dir) throw new Error(`not a deployment id: ${id}`);
    return dir;
  }

  snapshotDirOf(id: string): string {
    return join(this.root, ".snapshots", id);
  }

  async prepare(doc: DeploymentDoc): Promise<void> {
    await mkdir(this.dirOf(doc._id), { recursive: true, mode: 0o700 });
  }

  async dispose(doc: DeploymentDoc, retain: boolean): Promise<void> {
    const dir = this.dirOf(doc._id);
    if (!retain) {
      await rm(dir, { recursive: true, force: true, maxRetries: 2 });
      return;
    }
    const target = this.snapshotDirOf(doc._id);
    const now = new Date();
    await this.snapshots.record({ _id: doc._id, orgId: doc.orgId, customerId: doc.customerId, path: target, createdAt: now, expiresAt: new Date(now.getTime() + this.retentionMs) });
    // A retried teardown finds the workspace already moved.
    if (!(await exists(dir))) return;
    await mkdir(join(this.root, ".snapshots"), { recursive: true, mode: 0o700 });
    await rm(target, { recursive: true, force: true });
    await rename(dir, target);
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

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
