import { expect } from "chai";
import { TranscriptCache } from "../../src/worker/transcript-cache.js";
import { EMPTY_FOLD, type TranscriptFold } from "../../src/worker/domain/transcript-fold.js";

const sized = (bytes: number): TranscriptFold => ({ ...EMPTY_FOLD, bytes });

describe("the workers' transcript cache", () => {
  it("keeps at most its number of sessions, dropping the least recently used", () => {
    const cache = new TranscriptCache({ sessions: 2, bytes: 1_000 });
    cache.set("a", sized(1));
    cache.set("b", sized(1));
    cache.get("a");
    cache.set("c", sized(1));
    expect([cache.get("a"), cache.get("b"), cache.get("c")].map(Boolean)).to.deep.equal([true, false, true]);
  });

  it("keeps at most its estimated bytes, and never a fold larger than all of them", () => {
    const cache = new TranscriptCache({ sessions: 10, bytes: 100 });
    cache.set("a", sized(40));
    cache.set("b", sized(40));
    cache.set("a", sized(50));
    expect(cache.usage()).to.deep.equal({ sessions: 2, bytes: 90 });
    cache.set("c", sized(30));
    expect(cache.usage()).to.deep.equal({ sessions: 2, bytes: 80 });
    expect(cache.get("b")).to.equal(undefined);
    cache.set("a", sized(101));
    expect(cache.get("a")).to.equal(undefined);
    expect(cache.usage()).to.deep.equal({ sessions: 1, bytes: 30 });
  });
});
