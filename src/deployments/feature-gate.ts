/** What a deployment's feature flags allow, for the core parts that run its agent (automations). */
import { invalidState, type AppError } from "../errors.js";
import type { DeploymentStore } from "./store/deployments.js";
import type { AutomationGate } from "../automations/automation-runs.js";

export class DeploymentFeatureGate implements AutomationGate {
  constructor(private readonly store: DeploymentStore) {}

  /** Read at each run, so turning the feature off stops the next occurrence. */
  async refusal(deploymentId: string): Promise<AppError | null> {
    const d = await this.store.byId(deploymentId);
    if (!d || d.deleting) return invalidState("the deployment was deleted");
    if (!d.settings.features.automations) return invalidState("automations are turned off for this deployment (features.automations)");
    return null;
  }
}
