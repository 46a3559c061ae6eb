// The contract run's data (MONGO_URL, REDIS_KEY_PREFIX). `unlimit`: lifts its keys' request ceiling, which
// thousands of generated requests a minute would otherwise meet (every answer a 429, nothing tested).
// `drop`: removes its database and its Redis keys.
import { Redis } from "ioredis";
import { MongoClient } from "mongodb";

const mongo = new MongoClient(process.env.MONGO_URL);
await mongo.connect();
if (process.argv[2] === "unlimit") {
  await mongo
    .db()
    .collection("api_keys")
    .updateMany({}, { $set: { requestsPerMinute: 1_000_000 } });
} else {
  await mongo.db().dropDatabase();
  const redis = new Redis(process.env.REDIS_URL);
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${process.env.REDIS_KEY_PREFIX}:*`, "COUNT", 1000);
    if (found.length > 0) await redis.del(...found);
    cursor = next;
  } while (cursor !== "0");
  await redis.quit();
}
await mongo.close();
