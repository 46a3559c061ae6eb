import { expect } from "chai";
import { Lru } from "../../src/lru.js";

describe("bounded LRU map (pure)", () => {
  it("keeps at most its capacity, dropping the least recently used entry", () => {
    const lru = new Lru<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    expect(lru.get("a")).to.equal(1); // "b" is now the least recently used
    lru.set("c", 3);
    expect([lru.get("a"), lru.get("b"), lru.get("c")]).to.deep.equal([1, undefined, 3]);
  });

  it("replacing a value counts as a use; deleted entries are gone", () => {
    const lru = new Lru<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    lru.set("a", 10);
    lru.set("c", 3);
    expect([lru.get("a"), lru.get("b")]).to.deep.equal([10, undefined]);
    lru.delete("a");
    expect(lru.get("a")).to.equal(undefined);
  });
});
