#!/usr/bin/env node
/**
 * Before `npm start`: makes sure MongoDB and Redis answer, locked, at the addresses the service will use
 * (MONGO_URL and REDIS_URL; for either left unset, the local services' URLs from the state directory's
 * secrets/credentials.env, else the defaults on 127.0.0.1), and says what it found or started:
 *   - `scripts/services.sh` made this machine's stores (its state directory says so): it runs again, which
 *     starts what is down and locks what an earlier version left open;
 *   - both answer: nothing to do;
 *   - a missing one on another host: an error naming the variable (nothing local would help);
 *   - a Docker engine answers: mongo:7 and redis:7 containers on the configured loopback ports, each with
 *     a password kept in the credentials file (started again when they exist, kept across runs:
 *     `agent-sessions-mongo`, `agent-sessions-redis`);
 *   - else `scripts/services.sh`: Redis and FerretDB from Debian's packages and Go, on those ports.
 * Plain Node without dependencies: it runs before anything is built.
 */
import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const say = (text) => process.stderr.write(`services: ${text}\n`);
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
// As scripts/services.sh and src/local-state.ts compute it.
const stateDir = process.env.SERVICES_DIR || join(process.env.XDG_STATE_HOME || join(process.env.HOME || homedir(), ".local", "state"), "agent-sessions");
const secretsDir = join(stateDir, "secrets");
const credentialsFile = join(secretsDir, "credentials.env");
const credentials = existsSync(credentialsFile) ? parseEnv(readFileSync(credentialsFile, "utf8")) : {};

function address(name, fallback, defaultPort) {
  const raw = process.env[name] || credentials[name] || fallback;
  let url;
  try {
    url = new URL(raw);
  } catch {
    say(`${name} is not a URL`);
    process.exit(2);
  }
  // mongodb+srv names a DNS record, not a host and port: a managed cluster, never started here.
  if (url.protocol === "mongodb+srv:") return { name, managed: true };
  const host = url.hostname.split(",")[0];
  return { name, host, port: Number(url.port || defaultPort), local: LOOPBACK.has(host), configured: Boolean(process.env[name]) };
}

function answers({ host, port }) {
  return new Promise((resolve) => {
    const socket = connect({ host: host.replace(/^\[|\]$/g, ""), port, timeout: 1_000 });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket
      .once("connect", () => done(true))
      .once("error", () => done(false))
      .once("timeout", () => done(false));
  });
}

async function waitFor(target, what) {
  for (let i = 0; i < 150; i++) {
    if (await answers(target)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  say(`${what} did not answer on ${target.host}:${target.port}`);
  process.exit(1);
}

const docker = (args) => spawnSync("docker", args, { encoding: "utf8", timeout: 120_000 });

/** The credentials file in scripts/services.sh's format (single-quoted values), 0600 in a 0700 directory. */
function writeCredentials(values) {
  mkdirSync(secretsDir, { recursive: true, mode: 0o700 });
  const lines = Object.entries(values).map(([name, value]) => `${name}='${value}'`);
  const tmp = `${credentialsFile}.${process.pid}`;
  writeFileSync(tmp, `# The local stores' passwords and URLs (Docker containers, made by scripts/ensure-services.mjs).\n${lines.join("\n")}\n`, {
    mode: 0o600,
  });
  renameSync(tmp, credentialsFile);
}

/**
 * Starts (or starts again) a named container publishing `port` on the loopback address, made with `env`
 * when `lock`; says whether it is locked (one made before the stores were locked is not).
 */
function container(name, image, port, innerPort, lock, env, command) {
  if (docker(["start", name]).status === 0) {
    const locked = (docker(["inspect", "--format", "{{json .Config.Env}}", name]).stdout ?? "").includes("AGENT_SESSIONS_LOCKED=1");
    if (lock && !locked)
      say(
        `the container ${name} was made before the stores were locked: any local process can use it; \`docker rm -f ${name}\` (its data goes with it) and start again for a locked one`,
      );
    return { told: `started the existing container ${name} (${image})`, locked };
  }
  const vars = lock ? Object.entries({ ...env, AGENT_SESSIONS_LOCKED: "1" }).flatMap(([k, v]) => ["-e", `${k}=${v}`]) : [];
  const run = docker(["run", "-d", "--name", name, "-p", `127.0.0.1:${port}:${innerPort}`, ...vars, image, ...command]);
  if (run.status !== 0) {
    say(`docker could not start ${image}: ${(run.stderr || run.stdout).trim()}`);
    process.exit(1);
  }
  return { told: `started ${image} in Docker as ${name}${lock ? ", with a password" : ""}`, locked: lock };
}

/**
 * mongo:7 (a user of the root role: the tests make databases of their own) and redis:7 (requirepass),
 * locked when their URL is the local state's, which then records them for npm start and npm test. A URL
 * the environment sets gets the container it names, as it names it.
 */
async function dockerStores(missing) {
  const values = { ...credentials, STORES: "docker", MONGO_USERNAME: "agent_sessions" };
  for (const target of missing) {
    const isMongo = target === mongo;
    const secretName = isMongo ? "MONGO_PASSWORD" : "REDIS_PASSWORD";
    const lock = !target.configured;
    if (lock) {
      values[secretName] ||= randomBytes(24).toString("hex");
      // Written before the container is made: a store never holds a password the file lacks.
      writeCredentials(values);
    }
    const password = values[secretName];
    const { told, locked } = isMongo
      ? container(
          "agent-sessions-mongo",
          "mongo:7",
          target.port,
          27017,
          lock,
          { MONGO_INITDB_ROOT_USERNAME: "agent_sessions", MONGO_INITDB_ROOT_PASSWORD: password },
          [],
        )
      : container("agent-sessions-redis", "redis:7", target.port, 6379, lock, {}, [
          "redis-server",
          "--appendonly",
          "yes",
          ...(lock ? ["--requirepass", password] : []),
        ]);
    await waitFor(target, isMongo ? "MongoDB" : "Redis");
    say(`${told}, on 127.0.0.1:${target.port}`);
    if (!lock) continue;
    const auth = locked ? (isMongo ? `agent_sessions:${password}@` : `:${password}@`) : "";
    values[target.name] = isMongo
      ? `mongodb://${auth}127.0.0.1:${target.port}/agent_sessions${locked ? "?authSource=admin" : ""}`
      : `redis://${auth}127.0.0.1:${target.port}`;
    writeCredentials(values);
  }
}

/** scripts/services.sh on the ports of the local URLs; it says what it found, started or locked. */
function servicesScript() {
  const env = { ...process.env, MONGO_PORT: String(mongo.port ?? 27017), REDIS_PORT: String(redis.port ?? 6379) };
  const local = spawnSync("bash", [join(root, "scripts", "services.sh")], { stdio: "inherit", env });
  process.exit(local.status ?? 1);
}

const mongo = address("MONGO_URL", "mongodb://127.0.0.1:27017/agent_sessions", 27017);
const redis = address("REDIS_URL", "redis://127.0.0.1:6379", 6379);
const madeByScript = credentials.STORES !== "docker" && (existsSync(credentialsFile) || existsSync(join(stateDir, "redis")));
if (madeByScript && [mongo, redis].some((t) => !t.configured && t.local)) servicesScript();

const missing = [];
for (const target of [mongo, redis]) {
  if (target.managed || (await answers(target))) continue;
  if (!target.local) {
    say(`nothing answers at ${target.name} (${target.host}:${target.port}); start it there or change ${target.name}`);
    process.exit(1);
  }
  missing.push(target);
}
if (missing.length === 0) {
  say("MongoDB and Redis answer at the configured addresses");
  process.exit(0);
}
if (docker(["version", "--format", "{{.Server.Version}}"]).status === 0) {
  await dockerStores(missing);
  process.exit(0);
}
say("no MongoDB/Redis answers and no Docker engine: starting Redis and FerretDB with scripts/services.sh");
servicesScript();
