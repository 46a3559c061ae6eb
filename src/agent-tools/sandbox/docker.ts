/**
 * The `docker` sandbox backend: when a Docker engine answers, each process tree of a deployment whose
 * sandbox is `{enabled: true, type: "docker"}` runs in a container of its own (`docker run --rm`),
 * through the engine's command-line client, so that it is a child process like every other backend's
 * (its output piped, its exit status read, its group killed):
 *   - the deployment's workspace is bind-mounted at /workspace and its /tmp at /tmp, as on the local
 *     backend, so paths, files and the workspace's life are the same on both;
 *   - the command runs as the deployment's uid (the same on the host: its files belong to it, and the
 *     teardown's "kill every process of the user" reaches it), with no capabilities, no_new_privs, a
 *     read-only root filesystem, `--init` as PID 1 (when the command ends, the container and everything
 *     it left end), and the engine's limits: memory, CPUs, processes, file size;
 *   - its network is the configured Docker network (`bridge`: the internet, not the host's loopback);
 *   - the deployment's secrets reach only the container, from an environment file the client reads
 *     from a pipe (never an argument, which /proc shows every user, and never the client's own
 *     environment, where `DOCKER_HOST` or `LD_PRELOAD` would act on a root process).
 * Killing a group of this backend also removes its container: the client's death alone would leave it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Writable } from "node:stream";

/** Where the workspace and /tmp are seen inside a container (the local backend's paths too). */
const WORKSPACE = "/workspace";
/** A label on every container of ours: the deployment it runs for. */
const LABEL = "agent-sessions.deployment";
const PROBE_TIMEOUT_MS = 10_000;
const PULL_TIMEOUT_MS = 600_000;
/** Bytes of a command-line client's output kept for an error message. */
const ERROR_BYTES = 2_000;

export interface DockerSettings {
  /** `DOCKER_HOST` for the client; its default socket when unset. */
  host: string | undefined;
  image: string;
  network: string;
  cpus: number;
}

/** What a container is given, beyond the command. */
export interface ContainerPlace {
  deploymentId: string;
  workspace: string;
  tmp: string;
  user: { uid: number; gid: number };
  memoryBytes: number;
  fileBytes: number;
  processes: number;
}

interface CommandResult {
  code: number | null;
  output: string;
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Containers of running clients, so that killing a client's group removes its container too. */
const containers = new WeakMap<ChildProcess, { engine: DockerEngine; name: string }>();

export class DockerEngine {
  private constructor(
    readonly settings: DockerSettings,
    /** The engine's version, as it answered the probe. */
    readonly version: string,
  ) {}

  /** The engine when one answers the client (a version), else null: no client, no engine, no access. */
  static async detect(settings: DockerSettings): Promise<DockerEngine | null> {
    const probe = await run(clientEnv(settings), ["version", "--format", "{{.Server.Version}}"], PROBE_TIMEOUT_MS).catch(() => null);
    const version = probe?.output.trim();
    return probe?.code === 0 && version ? new DockerEngine(settings, version) : null;
  }

  /** Why these variables cannot be given to a container, or null: an environment file holds one line per variable. */
  static unfit(variables: Record<string, string>): string | null {
    for (const [name, value] of Object.entries(variables)) {
      if (/[\n\r\0]/.test(value)) return `the secret in ${name} holds a line break, which the docker backend cannot pass as a variable`;
    }
    return null;
  }

  /** Makes sure the image is on this engine, pulling it when missing; throws with the engine's reason when it cannot. */
  async ensureImage(): Promise<void> {
    const env = clientEnv(this.settings);
    const { image } = this.settings;
    if ((await run(env, ["image", "inspect", "--format", "{{.Id}}", image], PROBE_TIMEOUT_MS)).code === 0) return;
    const pulled = await run(env, ["pull", "--quiet", image], PULL_TIMEOUT_MS);
    if (pulled.code !== 0)
      throw new Error(`the sandbox image ${image} is not on the Docker engine and cannot be pulled: ${pulled.output.trim().slice(-ERROR_BYTES)}`);
  }

  /**
   * Starts `argv` in a new container; the child is the client, leader of a process group of its own.
   * `env` holds the sandbox's variables (not secret: arguments), `variables` the deployment's secrets.
   */
  spawn(argv: string[], place: ContainerPlace, env: Record<string, string>, variables: Record<string, string>, stdin: "ignore" | "pipe"): ChildProcess {
    const name = `agent-sessions-${place.deploymentId}-${randomBytes(6).toString("hex")}`;
    const args = [
      "run",
      "--rm",
      "--init",
      "--interactive",
      "--name",
      name,
      "--label",
      `${LABEL}=${place.deploymentId}`,
      "--user",
      `${place.user.uid}:${place.user.gid}`,
      "--cap-drop",
      "ALL",
      "--security-opt",
      "no-new-privileges",
      "--read-only",
      "--network",
      this.settings.network,
      "--hostname",
      "sandbox",
      "--memory",
      String(place.memoryBytes),
      "--memory-swap",
      String(place.memoryBytes),
      "--cpus",
      String(this.settings.cpus),
      "--pids-limit",
      String(place.processes),
      "--ulimit",
      `fsize=${place.fileBytes}`,
      "--ulimit",
      "core=0",
      "--mount",
      `type=bind,source=${place.workspace},target=${WORKSPACE}`,
      "--mount",
      `type=bind,source=${place.tmp},target=/tmp`,
      "--tmpfs",
      "/var/tmp:rw,nosuid,nodev,size=64m",
      "--workdir",
      WORKSPACE,
      ...Object.entries(env).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
      // A pipe (bash's process substitution on fd 9) the client opens as a file: Node's stdio are sockets, which it cannot open.
      "--env-file",
      "/dev/fd/9",
      this.settings.image,
      ...argv,
    ];
    const child = spawn("bash", ["--norc", "--noprofile", "-c", 'exec "$@" 9< <(cat <&3) 3<&-', "docker", "docker", ...args], {
      env: clientEnv(this.settings),
      stdio: [stdin, "pipe", "pipe", "pipe"],
      detached: true,
    });
    containers.set(child, { engine: this, name });
    const file = child.stdio[3] as Writable;
    // The client may end before reading it all (EPIPE): nothing is lost that anyone needed.
    file.on("error", () => undefined);
    file.end(envFile(variables));
    return child;
  }

  /** Removes every container of the deployment (its teardown), running or not. */
  async removeContainersOf(deploymentId: string): Promise<void> {
    const env = clientEnv(this.settings);
    const listed = await run(env, ["ps", "--all", "--quiet", "--filter", `label=${LABEL}=${deploymentId}`], PROBE_TIMEOUT_MS);
    const ids = listed.output
      .split("\n")
      .map((s) => s.trim())
      .filter((s) => /^[0-9a-f]+$/.test(s));
    if (listed.code !== 0) throw new Error(`the Docker engine did not list the deployment's containers: ${listed.output.trim().slice(-ERROR_BYTES)}`);
    if (ids.length > 0) await run(env, ["rm", "--force", ...ids], PROBE_TIMEOUT_MS);
  }

  /** Removes one container, in the background (a killed client's). */
  removeInBackground(name: string): void {
    const remover = spawn("docker", ["rm", "--force", name], { env: clientEnv(this.settings), stdio: "ignore", detached: true });
    remover.on("error", () => undefined);
    remover.unref();
  }
}

/** Removes the container of a client that is still running, when the child is one; called as its group is killed. */
export function removeContainerOf(child: ChildProcess): void {
  const container = containers.get(child);
  if (!container || child.exitCode !== null || child.signalCode !== null) return;
  containers.delete(child);
  container.engine.removeInBackground(container.name);
}

/** The client's environment: nothing of the service's but where the client and its engine are. */
function clientEnv(settings: DockerSettings): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", HOME: process.env.HOME ?? "/root" };
  if (settings.host) env.DOCKER_HOST = settings.host;
  return env;
}

/** `NAME=value` lines; names that are not variable names are left out, as on the local backend. */
function envFile(variables: Record<string, string>): string {
  return Object.entries(variables)
    .filter(([name, value]) => VARIABLE_NAME.test(name) && !/[\n\r\0]/.test(value))
    .map(([name, value]) => `${name}=${value}\n`)
    .join("");
}

/** Runs the client to its end, its output (both streams) kept; rejects only when it cannot start. */
function run(env: Record<string, string>, args: string[], timeoutMs: number): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("docker", args, { env, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-64 * 1024);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}
