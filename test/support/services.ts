/**
 * Where the tests find MongoDB and Redis: MONGO_URL/REDIS_URL when set; otherwise testcontainers
 * (mongo:7, redis:7) when a Docker engine answers; otherwise the run stops and says what to do.
 */
import { existsSync } from "node:fs";

export interface TestServices {
  mongoUrl: string;
  redisUrl: string;
  stop(): Promise<void>;
}

const HOW_TO = `No MongoDB/Redis for the tests.
  Either set MONGO_URL and REDIS_URL to running servers, e.g.
    npm run services   # starts redis-server and FerretDB on 127.0.0.1 (no Docker needed)
    MONGO_URL=mongodb://127.0.0.1:27017/agent_sessions REDIS_URL=redis://127.0.0.1:6379 npm test
  or start a Docker engine, and the tests will start mongo:7 and redis:7 with testcontainers.`;

function dockerLikely(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync("/var/run/docker.sock");
}

export async function startTestServices(): Promise<TestServices> {
  const { MONGO_URL, REDIS_URL } = process.env;
  if (MONGO_URL && REDIS_URL) return { mongoUrl: MONGO_URL, redisUrl: REDIS_URL, stop: async () => {} };
  if (MONGO_URL || REDIS_URL) throw new Error("Set both MONGO_URL and REDIS_URL, or neither.\n" + HOW_TO);
  if (!dockerLikely()) throw new Error(HOW_TO);
  try {
    const { GenericContainer, Wait } = await import("testcontainers");
    const [mongo, redis] = await Promise.all([
      new GenericContainer("mongo:7").withExposedPorts(27017).withWaitStrategy(Wait.forLogMessage(/Waiting for connections/)).start(),
      new GenericContainer("redis:7").withExposedPorts(6379).withCommand(["redis-server", "--appendonly", "yes"]).start(),
    ]);
    return {
      mongoUrl: `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}/agent_sessions`,
      redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
      stop: async () => {
        await Promise.allSettled([mongo.stop(), redis.stop()]);
      },
    };
  } catch (err) {
    throw new Error(`The Docker engine did not start the test containers (${(err as Error).message}).\n${HOW_TO}`);
  }
}
