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
    const sameMs = made.filter((id) => id.slice(4, 14) === made[0]!.slice(4, 14));
    expect(sameMs.length, "several were made in the first one's millisecond").to.be.greaterThan(1);
  });
});
