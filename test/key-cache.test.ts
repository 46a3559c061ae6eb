import { expect } from "chai";
import { MongoClient, type Db } from "mongodb";
import { newId } from "../src/ids.js";
import { KEY_CACHE_TTL_MS } from "../src/accounts/store/key-cache.js";
import { OrganizationStore } from "../src/accounts/store/organizations.js";
import { env } from "./support/hooks.js";

/**
 * The API-key cache: concurrent misses for one key make one database lookup, counted with the
 * driver's command monitoring on the real database. The cache's clock is the test's, so an entry
 * expires when the test says so.
 */
describe("API-key cache", () => {
  let client: MongoClient;
  let db: Db;
  let lookups = 0;
  let clock = 0;
  const now = () => clock;

  before(async () => {
    client = new MongoClient(env.mongoUrl, { monitorCommands: true });
    client.on("commandStarted", (e) => {
      if (e.commandName === "find" && e.command.find === "api_keys") lookups++;
    });
    await client.connect();
    db = client.db();
  });
  after(async () => client.close());

  async function newKey(store: OrganizationStore): Promise<{ key: string; keyId: string; orgId: string }> {
    const orgId = newId("org");
    const { id, key } = await store.createKey(orgId);
    return { key, keyId: id, orgId };
  }

  /** Sends 50 authentications at once and returns how many lookups they made. */
  async function fifty(store: OrganizationStore, key: string, orgId: string): Promise<number> {
    lookups = 0;
    const principals = await Promise.all(Array.from({ length: 50 }, () => store.authenticate(key)));
    for (const p of principals) expect(p?.orgId).to.equal(orgId);
    return lookups;
  }

  it("50 concurrent first requests with the same key make one lookup", async () => {
    const store = new OrganizationStore(db, now);
    const { key, orgId } = await newKey(store);
    expect(await fifty(store, key, orgId)).to.equal(1);
    expect(await fifty(store, key, orgId), "then served from the cache").to.equal(0);
  });

  it("when the entry expires under concurrent load, one lookup refreshes it", async () => {
    const store = new OrganizationStore(db, now);
    const { key, orgId } = await newKey(store);
    await store.authenticate(key);
    clock += KEY_CACHE_TTL_MS;
    expect(await fifty(store, key, orgId)).to.equal(1);
  });

  it("a key revoked by another process is refused here once its entry expires, and not before", async () => {
    const store = new OrganizationStore(db, now);
    const elsewhere = new OrganizationStore(db, now);
    const { key, keyId, orgId } = await newKey(store);
    expect((await store.authenticate(key))?.orgId).to.equal(orgId);
    expect(await elsewhere.revokeKey(keyId)).to.equal(true);
    expect(await elsewhere.authenticate(key), "the revoking process forgets it at once").to.equal(null);
    clock += KEY_CACHE_TTL_MS - 1;
    expect((await store.authenticate(key))?.orgId, "still cached").to.equal(orgId);
    clock += 1;
    expect(await store.authenticate(key)).to.equal(null);
  });

  it("concurrent requests with an unknown key make one lookup, and are refused", async () => {
    const store = new OrganizationStore(db, now);
    lookups = 0;
    const principals = await Promise.all(Array.from({ length: 50 }, () => store.authenticate("ask_unknown")));
    expect(principals.every((p) => p === null)).to.equal(true);
    // By its derived id, then by its hash (keys created before ids were derived from hashes).
    expect(lookups).to.equal(2);
  });
});
