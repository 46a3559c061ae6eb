/** Mocha root hooks: one set of backing services and one test database for the whole run. */
import { Redis } from "ioredis";
import { MongoClient } from "mongodb";
import { startTestServices, type TestServices } from "./services.js";

let services: TestServices | undefined;
let releaseRedis: (() => Promise<void>) | undefined;

export const env = {
  mongoUrl: "",
  redisUrl: "",
};

/**
 * A Redis logical database of its own for every run (unless the URL names one). Runs sharing one
 * Redis would otherwise share the wake-up stream, and a worker of one run would take up the sessions
 * of another, which its MongoDB database does not hold. The database is reserved in database 0 with
 * an expiring key, emptied before use and after the run, and released.
 */
async function reserveRedisDatabase(url: string): Promise<{ url: string; release: () => Promise<void> }> {
  const u = new URL(url);
  if (u.pathname !== "" && u.pathname !== "/") return { url, release: async () => {} };
  const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await admin.connect();
  const owner = `${process.pid}-${Date.now()}`;
  try {
    const reply = (await admin.config("GET", "databases").catch(() => [])) as string[];
    const count = Number(reply[1] ?? 16);
    for (let db = 1; db < count; db++) {
      const reservation = `as:test:redis-db:${db}`;
      if ((await admin.set(reservation, owner, "EX", 3600, "NX")) !== "OK") continue;
      u.pathname = `/${db}`;
      const flush = async () => {
        const conn = new Redis(u.toString(), { maxRetriesPerRequest: 2 });
        await conn.flushdb();
        conn.disconnect();
      };
      await flush();
      return {
        url: u.toString(),
        release: async () => {
          await flush();
          const again = new Redis(url, { maxRetriesPerRequest: 2 });
          if ((await again.get(reservation)) === owner) await again.del(reservation);
          again.disconnect();
        },
      };
    }
  } finally {
    admin.disconnect();
  }
  throw new Error("No free Redis logical database for this test run (all are reserved by other runs).");
}

/** A database of its own for every run, so runs never see each other's data. */
function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(180_000);
    try {
      services = await startTestServices();
    } catch (err) {
      process.stderr.write(`\n${(err as Error).message}\n\n`);
      process.exit(1);
    }
    env.mongoUrl = withDatabase(services.mongoUrl, `agent_sessions_test_${Date.now().toString(36)}_${process.pid}`);
    const redis = await reserveRedisDatabase(services.redisUrl);
    releaseRedis = redis.release;
    env.redisUrl = redis.url;
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    if (env.mongoUrl) {
      const client = new MongoClient(env.mongoUrl);
      await client.connect();
      await client.db().dropDatabase().catch(() => undefined);
      await client.close();
    }
    await releaseRedis?.().catch(() => undefined);
    await services?.stop();
  },
};
