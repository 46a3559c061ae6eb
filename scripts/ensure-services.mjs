#!/usr/bin/env node
/**
 * Before `npm start`: makes sure MongoDB and Redis answer at the configured addresses (MONGO_URL,
 * REDIS_URL, or the service's defaults on 127.0.0.1), and says what it found or started:
 *   - both answer: nothing to do;
 *   - a missing one on another host: an error naming the variable (nothing local would help);
 *   - a Docker engine answers: mongo:7 and redis:7 containers on the configured loopback ports (started
 *     again when they exist, kept across runs: `agent-sessions-mongo`, `agent-sessions-redis`);
 *   - else `scripts/services.sh`: Redis and FerretDB from Debian's packages and Go, on those ports.
 * Plain Node without dependencies: it runs before anything is built.
 */
import { spawnSync } from "node:child_process";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const say = (text) => process.stderr.write(`services: ${text}\n`);
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

function address(name, fallback, defaultPort) {
  const raw = process.env[name] || fallback;
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
  return { name, host, port: Number(url.port || defaultPort), local: LOOPBACK.has(host) };
}

function answers({ host, port }) {
  return new Promise((resolve) => {
    const socket = connect({ host: host.replace(/^\[|\]$/g, ""), port, timeout: 1_000 });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true)).once("error", () => done(false)).once("timeout", () => done(false));
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

/** Starts (or starts again) a named container publishing `port` on the loopback address. */
function container(name, image, port, innerPort, command) {
  if (docker(["start", name]).status === 0) return `started the existing container ${name} (${image})`;
  const run = docker(["run", "-d", "--name", name, "-p", `127.0.0.1:${port}:${innerPort}`, image, ...command]);
  if (run.status !== 0) {
    say(`docker could not start ${image}: ${(run.stderr || run.stdout).trim()}`);
    process.exit(1);
  }
  return `started ${image} in Docker as ${name}`;
}

const mongo = address("MONGO_URL", "mongodb://127.0.0.1:27017/agent_sessions", 27017);
const redis = address("REDIS_URL", "redis://127.0.0.1:6379", 6379);
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
  for (const target of missing) {
    const told = target === mongo
      ? container("agent-sessions-mongo", "mongo:7", target.port, 27017, [])
      : container("agent-sessions-redis", "redis:7", target.port, 6379, ["redis-server", "--appendonly", "yes"]);
    await waitFor(target, target === mongo ? "MongoDB" : "Redis");
    say(`${told}, on 127.0.0.1:${target.port}`);
  }
  process.exit(0);
}

say("no MongoDB/Redis answers and no Docker engine: starting Redis and FerretDB with scripts/services.sh");
const env = { ...process.env, MONGO_PORT: String(mongo.port ?? 27017), REDIS_PORT: String(redis.port ?? 6379) };
const local = spawnSync("bash", [join(root, "scripts", "services.sh")], { stdio: "inherit", env });
process.exit(local.status ?? 1);
