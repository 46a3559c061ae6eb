import { expect } from "chai";
import { newId } from "../src/ids.js";

describe("ids", () => {
  it("have the prefix, ten time digits and sixteen random ones, in Crockford base32", () => {
    expect(newId("sec")).to.match(/^sec_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it("sort in the order this process made them, also many in one millisecond", () => {
    const made = Array.from({ length: 5_000 }, () => newId("sec"));
    expect(new Set(made).size).to.equal(made.length);
    expect([...made].sort()).to.deep.equal(made);
    // The first id may fall at a millisecond's end: look for any millisecond that holds several.
    const perMs = new Map<string, number>();
    for (const id of made) perMs.set(id.slice(4, 14), (perMs.get(id.slice(4, 14)) ?? 0) + 1);
    expect(Math.max(...perMs.values()), "several were made in one millisecond").to.be.greaterThan(1);
  });
});
