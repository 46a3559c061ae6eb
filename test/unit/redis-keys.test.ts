import { expect } from "chai";
import { isCluster } from "../../src/redis/client.js";
import { CLUSTER_SHARDS, Keys } from "../../src/redis/keys.js";

/** A key's cluster slot as Redis computes it: CRC16 (XMODEM) of its hash tag (the first non-empty `{…}`), or of the whole key, mod 16384. */
function slotOf(key: string): number {
  const open = key.indexOf("{");
  const close = open < 0 ? -1 : key.indexOf("}", open + 1);
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  let crc = 0;
  for (const byte of Buffer.from(hashed)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

const sessions = Array.from({ length: 400 }, (_, i) => `ses_${i.toString(36).padStart(6, "0")}`);

describe("Redis key layout", () => {
  it("on a single node keeps the names of earlier releases: one shard, the session id as tag, flat intent sets and wake-up stream", () => {
    const keys = new Keys("as");
    expect(keys.sessionLog("ses_1")).to.equal("as:{ses_1}:log");
    expect([keys.pending(0), keys.projections(0), keys.wakeups(0)]).to.deep.equal(["as:pending", "as:projections", "as:wakeups"]);
    expect(sessions.every((id) => keys.shardOf(id) === 0)).to.equal(true);
    expect(keys.shardGroups()).to.deep.equal([[0]]);
  });

  it("on a cluster puts every key of a session's commit in one slot, its shard's", () => {
    const keys = new Keys("as", true);
    for (const id of sessions) {
      const shard = keys.shardOf(id);
      const slots = new Set([...keys.appendEventsKeys(id, null), ...keys.appendLiveKeys(id), ...keys.sessionKeys(id)].map(slotOf));
      expect([...slots], id).to.deep.equal([keys.slotOf(shard)]);
    }
    expect(keys.shardGroups()).to.have.length(CLUSTER_SHARDS);
  });

  it("on a cluster spreads the sessions over every shard, and the shards evenly over masters holding equal slot ranges", () => {
    const keys = new Keys("as", true);
    expect(new Set(sessions.map((id) => keys.shardOf(id))).size).to.equal(CLUSTER_SHARDS);
    const perMaster = [0, 0, 0];
    for (const shard of keys.allShards()) {
      expect(slotOf(keys.wakeups(shard))).to.equal(keys.slotOf(shard));
      perMaster[Math.min(2, Math.floor(keys.slotOf(shard)! / 5461))]! += 1;
    }
    expect(
      perMaster.every((n) => n >= 5 && n <= 6),
      perMaster.join("/"),
    ).to.equal(true);
  });

  it("is a cluster for a redis+cluster URL or REDIS_CLUSTER_NODES, a single node otherwise", () => {
    expect(isCluster({ redisUrl: "redis+cluster://127.0.0.1:7001" })).to.equal(true);
    expect(isCluster({ redisUrl: "rediss+cluster://user:pw@redis.example:7001" })).to.equal(true);
    expect(isCluster({ redisUrl: "redis://127.0.0.1:6379", redisClusterNodes: ["10.0.0.1:7001", "10.0.0.2:7001"] })).to.equal(true);
    expect(isCluster({ redisUrl: "redis://127.0.0.1:6379", redisClusterNodes: [] })).to.equal(false);
    expect(isCluster({ redisUrl: "rediss://127.0.0.1:6380" })).to.equal(false);
  });
});
