/**
 * Where a deployment's threads run their tools (the core's `ThreadPlaces`, handed to the worker's
 * placement at composition): the deployment's workspace `<root>/<dep_id>`, shared by all its threads and
 * never removed when one ends (the deployment's teardown does); without a persistent filesystem, a
 * workspace of the thread's own, copied from the deployment's files; its user, in containers
 * (`src/agent-tools/sandbox/docker.ts`) when its sandbox asks for `docker` and an engine answers, else in
 * namespaces like an ordinary session's; its secrets as variables of the processes that run the agent's
 * commands, read when each starts: a rotated secret or a changed map applies from the next one on.
 * Decrypted values live only for that start. A deployment's sandbox setting never changes, so it is
 * cached; its secrets map is read each time.
 */
import type { Logger } from "../log.js";
import { Lru } from "../lru.js";
import { isAppError } from "../errors.js";
import type { DeploymentSandbox } from "./domain/deployments.js";
import type { DeploymentSecretRefs } from "./store/secret-refs.js";
import { deploymentIsolation, prepareDeploymentWorkspace, prepareThreadWorkspace, sandboxBackend, type SandboxBackend } from "./workspace.js";
import { deploymentWorkspaceOf } from "./workspace-files.js";
import { DockerEngine } from "../agent-tools/sandbox/docker.js";
import { sandboxUser, workspaceOf, type ToolEnvironment, type ToolPlace } from "../agent-tools/sandbox/sandbox.js";
import type { ThreadPlaces } from "../agent-tools/sandbox/thread-places.js";
import type { ToolIsolation } from "../agent-tools/sandbox/tool-isolation.js";
import type { SecretService } from "../vaults/secrets.js";

/** Bytes of variables (names, values, separators) a process gets at most: half of what `execve` takes on Linux, leaving room for the command. */
export const ENVIRONMENT_BYTES_MAX = 1024 * 1024;
/** Deployments whose sandbox setting is remembered. */
const REMEMBERED = 10_000;
const GONE = "the deployment this thread belongs to is being deleted; its tools no longer run";

export interface DeploymentPlacesDeps {
  workspaceRoot: string;
  /** The `docker` backend's engine, when one answered. */
  docker: DockerEngine | null;
  deployments: Pick<DeploymentSecretRefs, "place">;
  secrets: Pick<SecretService, "resolve">;
  logger: Logger;
}

export class DeploymentPlaces implements ThreadPlaces {
  private readonly sandboxes = new Lru<string, DeploymentSandbox>(REMEMBERED);
  private readonly told = new Set<SandboxBackend>();

  constructor(private readonly deps: DeploymentPlacesDeps) {}

  async of(thread: { _id: string; orgId: string; deploymentId: string }, isolation: Pick<ToolIsolation, "networks" | "unisolated">): Promise<ToolPlace | null> {
    const root = this.deps.workspaceRoot;
    const { networks, unisolated } = isolation;
    const { deploymentId } = thread;
    const workspace = deploymentWorkspaceOf(root, deploymentId);
    const sandbox = workspace && (await this.sandboxOf(thread.orgId, deploymentId));
    if (!workspace || !sandbox) return null;
    // Namespaces need this worker's session networks, which it has wherever the machine can isolate.
    const chosen = sandboxBackend(sandbox, this.deps.docker);
    const backend = chosen === "namespaces" && !networks ? "none" : chosen;
    this.tell(backend, sandbox);
    const user = sandboxUser(deploymentId);
    const shared = {
      user,
      isolation: deploymentIsolation(root, deploymentId, backend, this.deps.docker),
      network: backend === "namespaces" && networks && user ? () => networks.lease(thread._id, user) : null,
      unisolated: backend === "none" ? unisolated : null,
      soleUser: false,
      environment: () => this.environment(thread.orgId, deploymentId, backend),
    };
    if (!sandbox.persistentFilesystem) {
      const own = workspaceOf(root, thread._id)!;
      return { ...shared, workspace: own, prepare: () => prepareThreadWorkspace(root, deploymentId, own) };
    }
    return { ...shared, workspace, prepare: () => prepareDeploymentWorkspace(root, deploymentId) };
  }

  prepare(deploymentId: string): Promise<void> {
    return prepareDeploymentWorkspace(this.deps.workspaceRoot, deploymentId);
  }

  private async sandboxOf(orgId: string, deploymentId: string): Promise<DeploymentSandbox | null> {
    const cached = this.sandboxes.get(deploymentId);
    if (cached) return cached;
    const place = await this.deps.deployments.place(deploymentId);
    if (!place || place.orgId !== orgId) return null;
    this.sandboxes.set(deploymentId, place.sandbox);
    return place.sandbox;
  }

  /** The deployment's secrets as variables, read now; why not as the tool's answer (never with a value in it). */
  private async environment(orgId: string, deploymentId: string, backend: SandboxBackend): Promise<ToolEnvironment> {
    const place = await this.deps.deployments.place(deploymentId);
    if (!place || place.orgId !== orgId) return { ok: false, problem: GONE };
    let env: Record<string, string>;
    try {
      env = await this.deps.secrets.resolve(orgId, place.secrets);
    } catch (err) {
      if (isAppError(err, "invalid_secret_ref", "unavailable"))
        return { ok: false, problem: `the deployment's secrets cannot be given to the command: ${err.message}` };
      throw err;
    }
    const bytes = Object.entries(env).reduce((n, [name, value]) => n + Buffer.byteLength(name) + Buffer.byteLength(value) + 2, 0);
    if (bytes > ENVIRONMENT_BYTES_MAX) {
      return {
        ok: false,
        problem: `the deployment's secrets come to ${bytes} bytes of environment, over the ${ENVIRONMENT_BYTES_MAX} a command may be given; remove some from its secrets map`,
      };
    }
    const unfit = backend === "docker" ? DockerEngine.unfit(env) : null;
    if (unfit) return { ok: false, problem: unfit };
    return { ok: true, env };
  }

  /** Says once per backend, at the first deployment thread that gets it, which backend its tools get. */
  private tell(backend: SandboxBackend, sandbox: DeploymentSandbox): void {
    if (this.told.has(backend)) return;
    this.told.add(backend);
    if (backend === "docker")
      this.deps.logger.info("deployment threads run on the docker sandbox backend, a container per command", { image: this.deps.docker?.settings.image });
    else if (backend === "namespaces")
      this.deps.logger.info("deployment threads run on the local sandbox backend, isolated with namespaces", {
        requestedType: sandbox.type,
        enabled: sandbox.enabled,
      });
  }
}
