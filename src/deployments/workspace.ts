/**
 * A deployment's workspace on the local backend: one directory per deployment under the workspace root
 * (`<root>/<dep_id>`, shared by all its threads, kept when a thread ends), owned by the deployment's
 * own user (`sandboxUser` of its id) with mode 0700, and its /tmp beside it (`<root>/.deployment-tmp/<dep_id>`).
 * With isolation (namespaces or a container) the deployment's processes see the workspace at
 * /workspace; without, at its path here.
 */
import { chmod, chown, cp, lchown, mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { deploymentWorkspaceOf } from "./workspace-files.js";
import type { DockerEngine } from "../agent-tools/sandbox/docker.js";
import { isolationAvailable } from "../agent-tools/sandbox/isolation-probe.js";
import { ISOLATED_WORKSPACE, type Isolation } from "../agent-tools/sandbox/isolation.js";
import { killUser, prepareWorkspace, sandboxUser } from "../agent-tools/sandbox/sandbox.js";

const TMP_DIR = ".deployment-tmp";

function workspaceDir(root: string, deploymentId: string): string {
  const dir = deploymentWorkspaceOf(root, deploymentId);
  if (!dir) throw new Error("not a deployment id");
  return dir;
}

function tmpDir(root: string, deploymentId: string): string {
  return join(root, TMP_DIR, deploymentId);
}

/** How a deployment's processes are isolated here: in containers, in namespaces, or not at all. */
export type SandboxBackend = "docker" | "namespaces" | "none";

/**
 * The backend a deployment with this sandbox setting gets on this machine: `docker` when it asks for it
 * (enabled, type docker), an engine answers and the worker runs as root (the deployment's uid owns its
 * files and runs its processes); else the namespaces every session gets when the machine can make them
 * (`isolation.ts`), whatever the setting: `enabled: false` asks for no container, it does not take
 * the operator's isolation away. "none" only where the machine cannot isolate at all.
 */
export function sandboxBackend(sandbox: { enabled: boolean; type?: string }, docker: DockerEngine | null): SandboxBackend {
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (root && sandbox.enabled && sandbox.type === "docker" && docker) return "docker";
  return isolationAvailable() ? "namespaces" : "none";
}

/** The isolation of the deployment's processes on `backend`; null for none. */
export function deploymentIsolation(root: string, deploymentId: string, backend: SandboxBackend, docker: DockerEngine | null): Isolation | null {
  if (backend === "none") return null;
  const isolation: Isolation = { tmp: tmpDir(root, deploymentId), hide: root };
  if (backend === "docker" && docker) isolation.container = { engine: docker, deploymentId };
  return isolation;
}

/** `filesystem.workspace_path`: where the deployment's tools see its workspace. */
export function deploymentWorkspacePath(
  root: string,
  deployment: { _id: string; sandbox: { enabled: boolean; type?: string } },
  docker: DockerEngine | null,
): string {
  return sandboxBackend(deployment.sandbox, docker) === "none" ? workspaceDir(root, deployment._id) : ISOLATED_WORKSPACE;
}

/**
 * Makes the deployment's workspace and /tmp when missing (idempotent, cheap: every tool call runs it),
 * owned by its user when the worker can switch users, under parents that can be passed through but not
 * listed (0711).
 */
export async function prepareDeploymentWorkspace(root: string, deploymentId: string): Promise<void> {
  const user = sandboxUser(deploymentId);
  await prepareWorkspace(workspaceDir(root, deploymentId), user);
  const tmp = tmpDir(root, deploymentId);
  await mkdir(tmp, { recursive: true, mode: 0o700 });
  if (!user) return;
  await chmod(dirname(tmp), 0o711);
  await chown(tmp, user.uid, user.gid);
}

/**
 * A thread's own workspace when the deployment's filesystem is not persistent: made at the thread's
 * first tool call as a copy of the deployment's files (those uploaded to it), owned by the deployment's
 * user; removed with the thread, like an ordinary session's. Nothing a thread writes reaches another.
 */
export async function prepareThreadWorkspace(root: string, deploymentId: string, workspace: string): Promise<void> {
  await prepareDeploymentWorkspace(root, deploymentId);
  if (
    await stat(workspace).then(
      () => true,
      () => false,
    )
  )
    return;
  const user = sandboxUser(deploymentId);
  const staging = `${workspace}.copying`;
  await rm(staging, { recursive: true, force: true });
  await cp(workspaceDir(root, deploymentId), staging, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  if (user) await chownTree(staging, user);
  // Complete or absent: a copy cut short by a crash is redone, never used half made.
  await rename(staging, workspace).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== "ENOTEMPTY" && err.code !== "EEXIST") throw err;
    await rm(staging, { recursive: true, force: true });
  });
  await prepareWorkspace(workspace, user);
}

async function chownTree(dir: string, user: { uid: number; gid: number }): Promise<void> {
  await lchown(dir, user.uid, user.gid);
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    await lchown(join(entry.parentPath, entry.name), user.uid, user.gid);
  }
}

/**
 * Kills every process of the deployment's user (at its teardown), those of every thread and every worker
 * of this machine, in containers too (their uid is the same here), then removes its containers.
 */
export async function endDeploymentProcesses(deploymentId: string, docker: DockerEngine | null): Promise<void> {
  const user = sandboxUser(deploymentId);
  if (user) await killUser(user);
  if (docker) await docker.removeContainersOf(deploymentId);
}

/** Removes the deployment's workspace and /tmp (nothing when they do not exist). */
export async function removeDeploymentWorkspace(root: string, deploymentId: string): Promise<void> {
  await rm(workspaceDir(root, deploymentId), { recursive: true, force: true, maxRetries: 2 });
  await rm(tmpDir(root, deploymentId), { recursive: true, force: true, maxRetries: 2 });
}

/**
 * Moves the workspace to `<snapshotRoot>/<dep_id>` (replacing an older snapshot of it; copied when the
 * snapshot root is on another filesystem) and removes its /tmp. Answers the snapshot's path. A retried
 * call finds the workspace already moved and leaves the snapshot as it is.
 */
export async function snapshotDeploymentWorkspace(root: string, deploymentId: string, snapshotRoot: string): Promise<string> {
  const source = workspaceDir(root, deploymentId);
  const target = join(snapshotRoot, deploymentId);
  const present = await stat(source).then(
    () => true,
    () => false,
  );
  if (present) {
    await mkdir(snapshotRoot, { recursive: true, mode: 0o700 });
    await rm(target, { recursive: true, force: true });
    await rename(source, target).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== "EXDEV") throw err;
      await cp(source, target, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      await rm(source, { recursive: true, force: true, maxRetries: 2 });
    });
  }
  await rm(tmpDir(root, deploymentId), { recursive: true, force: true, maxRetries: 2 });
  return target;
}
