/**
 * Where the tests find MongoDB and Redis, so that `npm test` needs no variables:
 *   1. MONGO_URL and REDIS_URL, when set;
 *   2. the local services, when they answer: at the URLs, with their passwords, that `scripts/services.sh`
 *      wrote in the state directory (src/local-state.ts), else at the defaults (127.0.0.1:27017,
 *      127.0.0.1:6379: servers started before the stores were locked);
 *   3. testcontainers (mongo:7, redis:7), when a Docker engine answers;
 *   4. else `scripts/services.sh` starts Redis and FerretDB, locked (installing them if missing).
 * Each run then uses a database and a Redis key namespace of its own (`hooks.ts`).
 */
import { spawnSync } from "node:child_process";
import { connect } from "node:net";
import { withLocalState } from "../../src/local-state.js";
import { projectRoot } from "../../src/paths.js";

export interface TestServices {
  mongoUrl: string;
  redisUrl: string;
  /** What was used, for the run's first line. */
  origin: string;
  stop(): Promise<void>;
}

/** The local services' URLs: the state directory's, else the defaults. */
function local(): { mongoUrl: string; redisUrl: string } {
  const { env } = withLocalState({ ...process.env, MONGO_URL: undefined, REDIS_URL: undefined }, { vaultKey: false });
  return { mongoUrl: env.MONGO_URL ?? "mongodb://127.0.0.1:27017/agent_sessions", redisUrl: env.REDIS_URL ?? "redis://127.0.0.1:6379" };
}

const portOf = (url: string, fallback: number) => Number(new URL(url).port || fallback);

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, timeout: 1_000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket
      .once("connect", () => done(true))
      .once("error", () => done(false))
      .once("timeout", () => done(false));
  });
}

/** Whether a Docker engine answers (testcontainers can start images). */
export const dockerAnswers = () => spawnSync("docker", ["version", "--format", "{{.Server.Version}}"], { stdio: "ignore", timeout: 10_000 }).status === 0;

async function containers(): Promise<TestServices> {
  const { GenericContainer, Wait } = await import("testcontainers");
  const [mongo, redis] = await Promise.all([
    new GenericContainer("mongo:7")
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .start(),
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
  const found = local();
  if ((await answers(portOf(found.mongoUrl, 27017))) && (await answers(portOf(found.redisUrl, 6379)))) {
    return { ...found, origin: `the local services on 127.0.0.1${new URL(found.redisUrl).password ? ", with their passwords" : ""}`, stop: async () => {} };
  }
  if (dockerAnswers()) return containers();
  const started = spawnSync("bash", ["scripts/services.sh"], { cwd: projectRoot, stdio: ["ignore", "inherit", "inherit"] });
  if (started.status !== 0)
    throw new Error("scripts/services.sh could not start Redis and FerretDB (its messages are above); set MONGO_URL and REDIS_URL to running servers instead.");
  return { ...local(), origin: "Redis and FerretDB started by scripts/services.sh", stop: async () => {} };
}
