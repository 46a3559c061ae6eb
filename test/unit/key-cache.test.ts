import { expect } from "chai";
import { KeyCache } from "../../src/accounts/store/key-cache.js";

/** The cache's rules that need a lookup held open at a chosen moment; the lookup is a plain function. */
describe("KeyCache", () => {
  const principal = { keyId: "key_1", orgId: "org_1" };

  it("a lookup that started before its key was revoked here is handed back but not cached", async () => {
    const cache = new KeyCache<typeof principal>();
    let answer!: (p: typeof principal) => void;
    const pending = cache.get("h", () => new Promise((resolve) => (answer = resolve)));
    cache.forget("key_1");
    answer(principal);
    expect(await pending).to.equal(principal);
    let lookups = 0;
    await cache.get("h", async () => (lookups++, null));
    expect(lookups, "looked up again").to.equal(1);
  });

  it("a failed lookup is not shared with later requests", async () => {
    const cache = new KeyCache<typeof principal>();
    const failed = cache.get("h", () => Promise.reject(new Error("database down")));
    await failed.then(
      () => expect.fail("resolved"),
      (err: Error) => expect(err.message).to.equal("database down"),
    );
    expect(await cache.get("h", async () => principal)).to.equal(principal);
  });
});
