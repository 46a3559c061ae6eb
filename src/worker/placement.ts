/**
 * Where a session's tools run: the one place that decides it, for the tool settler, the preparation
 * and the reaper.
 *   - An ordinary session: its own workspace `<root>/<ses_id>` and /tmp, its own user, in namespaces of
 *     its own when the worker can make them (`src/agent-tools/sandbox/isolation.ts`); the reaper removes the workspace
 *     when the session is deleted.
 *   - A deployment's thread (`deploymentId`): the deployment's workspace `<root>/<dep_id>`, shared by all
 *     its threads and never removed when one ends (the deployment's teardown does); without a persistent
 *     filesystem, a workspace of the thread's own, copied from the deployment's files; its user, in
 *     containers (`src/agent-tools/sandbox/docker.ts`) when its sandbox asks for `docker` and an engine answers, else in
 *     namespaces like an ordinary session's; its secrets as
 *     variables of the processes that run the agent's commands, read when each starts: a rotated secret
 *     or a changed map applies from the next one on. Decrypted values live only for that start.
 * A deployment's sandbox setting never changes, so it is cached; its secrets map is read each time.
 */
import type { Logger } from "../log.js";
import { Lru } from "../lru.js";
import { isAppError } from "../errors.js";
import type { DeploymentSandbox } from "../deployments/domain/deployments.js";
import type { DeploymentSecretRefs } from "../deployments/store/secret-refs.js";
import { deploymentIsolation, prepareDeploymentWorkspace, prepareThreadWorkspace, sandboxBackend, type SandboxBackend } from "../deployments/workspace.js";
import { DockerEngine } from "../agent-tools/sandbox/docker.js";
import { deploymentWorkspaceOf } from "../deployments/workspace-files.js";
import { prepareSessionWorkspace, sandboxUser, sessionTmpOf, workspaceOf, type ToolEnvironment, type ToolPlace } from "../agent-tools/sandbox/sandbox.js";
import type { ToolIsolation } from "../agent-tools/sandbox/tool-isolation.js";
import type { SessionFacts } from "../sessions/session-facts.js";

/** Bytes of variables (names, values, separators) a process gets at most: half of what `execve` takes on Linux, leaving room for the command. */
export const ENVIRONMENT_BYTES_MAX = 1024 * 1024;
/** Deployments whose sandbox setting is remembered. */
const REMEMBERED = 10_000;

export interface SecretResolver {
  resolve(orgId: string, map: Record<string, string>): Promise<Record<string, string>>;
}

export interface PlacementDeps {
  workspaceRoot: string;
  /** The `docker` backend's engine, when one answered. */
  docker: DockerEngine | null;
  /** What this worker gives tool processes: namespaces and each session's network, or why not. */
  isolation: Pick<ToolIsolation, "networks" | "unisolated">;
  deployments: DeploymentSecretRefs;
  secrets: SecretResolver;
  logger: Logger;
}

const NO_VARIABLES: ToolEnvironment = { ok: true, env: {} };
const GONE = "the deployment this thread belongs to is being deleted; its tools no longer run";

export class Placements {
  private readonly sandboxes = new Lru<string, DeploymentSandbox>(REMEMBERED);
  private readonly told = new Set<SandboxBackend>();

  constructor(private readonly deps: PlacementDeps) {}

  /** Where the session's tools run; null for a deployment's thread whose deployment is gone (or being deleted). */
  async of(session: Pick<SessionFacts, "_id" | "orgId" | "deploymentId">): Promise<ToolPlace | null> {
    const root = this.deps.workspaceRoot;
    const { networks, unisolated } = this.deps.isolation;
    if (!session.deploymentId) {
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
    const deploymentId = session.deploymentId;
    const workspace = deploymentWorkspaceOf(root, deploymentId);
    const sandbox = workspace && (await this.sandboxOf(session.orgId, deploymentId));
    if (!workspace || !sandbox) return null;
    // Namespaces need this worker's session networks, which it has wherever the machine can isolate.
    const chosen = sandboxBackend(sandbox, this.deps.docker);
    const backend = chosen === "namespaces" && !networks ? "none" : chosen;
    this.tell(backend, sandbox);
    const user = sandboxUser(deploymentId);
    const shared = {
      user,
      isolation: deploymentIsolation(root, deploymentId, backend, this.deps.docker),
      network: backend === "namespaces" && networks && user ? () => networks.lease(session._id, user) : null,
      unisolated: backend === "none" ? unisolated : null,
      soleUser: false,
      environment: () => this.environment(session.orgId, deploymentId, backend),
    };
    if (!sandbox.persistentFilesystem) {
      const own = this.ownWorkspace(session._id)!;
      return { ...shared, workspace: own, prepare: () => prepareThreadWorkspace(root, deploymentId, own) };
    }
    return { ...shared, workspace, prepare: () => prepareDeploymentWorkspace(root, deploymentId) };
  }

  /** Makes the session's workspace ahead of its first tool (a preparation hint): the deployment's for its threads. */
  async prepare(session: { id: string; deploymentId?: string | undefined }): Promise<void> {
    if (session.deploymentId) return prepareDeploymentWorkspace(this.deps.workspaceRoot, session.deploymentId);
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
