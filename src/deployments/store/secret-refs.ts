/**
 * The two reads of deployment records that secrets need, each with a projection so a deployment's
 * skills (which can be large) are never read for them: a deployment's secrets map and sandbox, read by
 * the worker when a tool process starts (so a changed map applies to the next one), and the
 * deployments whose settings name a secret (a secret they name is not deleted). The map is read in
 * either stored shape (`deployment-shape.ts`).
 */
import type { Collection, Db } from "mongodb";
import type { DeploymentDoc } from "./deployments.js";
import { loadedSecrets, type StoredSecrets } from "./shape.js";

export type DeploymentPlace = Pick<DeploymentDoc, "_id" | "orgId" | "sandbox"> & { secrets: Record<string, string> };

type Projected = Pick<DeploymentDoc, "_id" | "orgId" | "sandbox" | "deleting"> & { settings?: { secrets?: StoredSecrets } };

const PROJECTION = { orgId: 1, sandbox: 1, deleting: 1, "settings.secrets": 1 } as const;

export class DeploymentSecretRefs {
  private readonly deployments: Collection<Projected>;

  constructor(db: Db) {
    this.deployments = db.collection<Projected>("deployments");
  }

  /** The deployment's sandbox and secrets map as they are now; null when it is gone or being deleted. */
  async place(id: string): Promise<DeploymentPlace | null> {
    const doc = await this.deployments.findOne({ _id: id }, { projection: PROJECTION });
    if (!doc || doc.deleting) return null;
    return { _id: doc._id, orgId: doc.orgId, sandbox: doc.sandbox, secrets: loadedSecrets(doc.settings?.secrets) };
  }

  /** Ids of the organization's deployments (not being deleted) whose secrets map names `secretId`, at most `limit`. */
  async referencing(orgId: string, secretId: string, limit: number): Promise<string[]> {
    const docs = await this.deployments.find({ orgId, deleting: null }, { projection: PROJECTION }).toArray();
    return docs
      .filter((d) => Object.values(loadedSecrets(d.settings?.secrets)).includes(secretId))
      .map((d) => d._id)
      .sort()
      .slice(0, limit);
  }
}
