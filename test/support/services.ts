/**
 * Where the tests find MongoDB and Redis, so that `npm test` needs no variables:
 *   1. MONGO_URL and REDIS_URL, when set;
 *   2. the local services at the defaults (127.0.0.1:27017, 127.0.0.1:6379), when they answer;
 *   3. testcontainers (mongo:7, redis:7), when a Docker engine answers;
 *   4. else `scripts/services.sh` starts Redis and FerretDB at the defaults (installing them if missing).
 * Each run then uses a database and a Redis key namespace of its own (`hooks.ts`).
 */
import { spawnSync } from "node:child_process";
import { connect } from "node:net";
import { projectRoot } from "../../src/paths.js";

export interface TestServices {
  mongoUrl: string;
  redisUrl: string;
  /** What was used, for the run's first line. */
  origin: string;
  stop(): Promise<void>;
}

const LOCAL = { mongoUrl: "mongodb://127.0.0.1:27017/agent_sessions", redisUrl: "redis://127.0.0.1:6379" };

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, timeout: 1_000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true)).once("error", () => done(false)).once("timeout", () => done(false));
  });
}

/** Whether a Docker engine answers (testcontainers can start images). */
export const dockerAnswers = () => spawnSync("docker", ["version", "--format", "{{.Server.Version}}"], { stdio: "ignore", timeout: 10_000 }).status === 0;

async function containers(): Promise<TestServices> {
  const { GenericContainer, Wait } = await import("testcontainers");
  const [mongo, redis] = await Promise.all([
    new GenericContainer("mongo:7").withExposedPorts(27017).withWaitStrategy(Wait.forLogMessage(/Waiting for connections/)).start(),
    new GenericContainer("redis:7").withExposedPorts(6379).withCommand(["redis-server", "--appendonly", "yes"]).start(),
  ]);
  return {
    mongoUrl: `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}/agent_sessions`,
    redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
    origin: "mongo:7 and redis:7 in Docker (testcontainers)",
    stop: async () => {
      await Promise.allSettled([mongo.stop(), redis.stop()]);
    },
  };
}

export async function startTestServices(): Promise<TestServices> {
  const { MONGO_URL, REDIS_URL } = process.env;
  if (MONGO_URL && REDIS_URL) return { mongoUrl: MONGO_URL, redisUrl: REDIS_URL, origin: "MONGO_URL and REDIS_URL", stop: async () => {} };
  if (MONGO_URL || REDIS_URL) throw new Error("Set both MONGO_URL and REDIS_URL, or neither (the tests then find or start local services).");
  if ((await answers(27017)) && (await answers(6379))) return { ...LOCAL, origin: "the local services on 127.0.0.1", stop: async () => {} };
  if (dockerAnswers()) return containers();
  const started = spawnSync("bash", ["scripts/services.sh"], { cwd: projectRoot, stdio: ["ignore", "inherit", "inherit"] });
  if (started.status !== 0) throw new Error("scripts/services.sh could not start Redis and FerretDB (its messages are above); set MONGO_URL and REDIS_URL to running servers instead.");
  return { ...LOCAL, origin: "Redis and FerretDB started by scripts/services.sh", stop: async () => {} };
}
