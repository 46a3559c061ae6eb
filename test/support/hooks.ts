/** Mocha root hooks: one set of backing services and one test database for the whole run. */
import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { createRedis } from "../../src/redis/client.js";
import { leaksSeen, secret, watchStream } from "./secrets.js";
import { masters } from "./redis.js";
import { startTestServices, type TestServices } from "./services.js";

let services: TestServices | undefined;

export const env = {
  mongoUrl: "",
  redisUrl: "",
  /** Redis namespace of this run, so concurrent runs on one Redis never share wake-ups. */
  redisKeyPrefix: `test-${Date.now().toString(36)}-${process.pid}`,
  /** The run's vault key: a secret of the test servers like any other, so the secret scan looks for it too. */
  vaultKey: randomBytes(32).toString("base64"),
};

/** A database of its own for every run, so runs never see each other's data. */
function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Removes the database the URL names (a run's, or a second deployment's). */
export async function dropDatabase(url: string): Promise<void> {
  const client = new MongoClient(url);
  await client.connect();
  await client
    .db()
    .dropDatabase()
    .catch(() => undefined);
  await client.close();
}

secret(env.vaultKey);
watchStream(process.stdout, "stdout");
watchStream(process.stderr, "stderr");

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    // A fresh machine installs and builds the local services first (a few minutes).
    this.timeout(900_000);
    try {
      services = await startTestServices();
      process.stderr.write(`tests: MongoDB and Redis from ${services.origin}\n`);
    } catch (err) {
      process.stderr.write(`\n${(err as Error).message}\n\n`);
      process.exit(1);
    }
    env.mongoUrl = withDatabase(services.mongoUrl, `agent_sessions_test_${Date.now().toString(36)}_${process.pid}`);
    env.redisUrl = services.redisUrl;
    // The stores' passwords are secrets of the service like any other: never in a response or a log line.
    for (const url of [env.mongoUrl, env.redisUrl]) if (new URL(url).password) secret(decodeURIComponent(new URL(url).password));
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    // A secret the service wrote anywhere fails the run, whichever test made it leak.
    if (leaksSeen().length > 0) throw new Error(`secrets leaked: ${leaksSeen().join("; ")}`);
    if (env.mongoUrl) await dropDatabase(env.mongoUrl);
    if (env.redisUrl) {
      const redis = createRedis(env.redisUrl, "test-cleanup");
      await redis.ping();
      // Every master's keys, one by one (on a cluster they are in many slots).
      for (const node of masters(redis)) {
        let cursor = "0";
        do {
          // Also the namespaces of second deployments a test starts (`<prefix>-<name>`: `otherDeployment`).
          const [next, found] = await node.scan(cursor, "MATCH", `${env.redisKeyPrefix}*`, "COUNT", 1000);
          await Promise.all(found.map((key) => node.unlink(key)));
          cursor = next;
        } while (cursor !== "0");
      }
      await redis.quit();
    }
    await services?.stop();
  },
};
