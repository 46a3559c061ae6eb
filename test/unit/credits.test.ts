import { expect } from "chai";
import {
  formatUsd,
  GRANT_WINDOW,
  grantEntryId,
  MAX_GRANT_MICROS,
  nextHead,
  parseUsd,
  TURN_WINDOW,
  turnDebitMicros,
  turnEntryId,
  type CreditHead,
} from "../../src/accounts/domain/credits.js";
import type { Usage } from "../../src/sessions/domain/events.js";

const usage = (over: Partial<Usage>): Usage => ({
  model: "anthropic/claude-sonnet-4-6",
  input: 0,
  output: 0,
  cache_read: 0,
  cache_write: 0,
  reasoning: 0,
  total: 0,
  calls: 1,
  context_used: 0,
  context_max: 0,
  context_percent: 0,
  cost_status: "estimated",
  last_turn_latency_ms: 0,
  latency_ms: 0,
  ...over,
});

describe("credits (pure)", () => {
  it("reads USD amounts digit by digit into micro-dollars, and refuses negative, malformed and too fine ones", () => {
    expect(parseUsd("25")).to.deep.equal({ micros: 25_000_000 });
    expect(parseUsd("0.1")).to.deep.equal({ micros: 100_000 });
    expect(parseUsd("8.2")).to.deep.equal({ micros: 8_200_000 }); // 8.2 * 1e6 is 8199999.999999999 in binary
    expect(parseUsd("12.345678")).to.deep.equal({ micros: 12_345_678 });
    expect(parseUsd("0")).to.deep.equal({ micros: 0 });
    expect(parseUsd("1000000")).to.deep.equal({ micros: MAX_GRANT_MICROS });
    for (const bad of ["-1", "-0.5", "1.2345678", "abc", "", "1e3", "1,5", "1000000.000001", " . "]) expect(parseUsd(bad), bad).to.have.property("problem");
    expect((parseUsd("-3") as { problem: string }).problem).to.include("negative");
  });

  it("shows micro-dollars as USD with 6 decimals", () => {
    expect(formatUsd(0)).to.equal("0.000000");
    expect(formatUsd(25_000_000)).to.equal("25.000000");
    expect(formatUsd(1)).to.equal("0.000001");
    expect(formatUsd(-12_345)).to.equal("-0.012345");
    expect(formatUsd(1_234_567_890)).to.equal("1234.567890");
  });

  it("a turn debits its estimated cost; an included one (the mock) and an unpriced one debit nothing", () => {
    expect(turnDebitMicros(usage({ cost_usd: 0.001572 }))).to.deep.equal({ micros: 1572, priced: true });
    expect(turnDebitMicros(usage({ cost_usd: 0, cost_status: "included" }))).to.deep.equal({ micros: 0, priced: true });
    expect(turnDebitMicros(usage({ cost_status: "unknown" }))).to.deep.equal({ micros: 0, priced: false });
  });

  it("entry ids: one per turn; grants in their own namespace", () => {
    expect(turnEntryId("ses_1", "turn_2")).to.equal("turn:ses_1:turn_2");
    expect(grantEntryId("turn:ses_1:turn_2")).to.not.equal(turnEntryId("ses_1", "turn_2"));
  });

  it("the next head applies an entry once: one the head remembers changes nothing", () => {
    const first = nextHead(null, { key: "g1", kind: "grant", micros: 5_000_000 })!;
    expect(first).to.deep.equal({ seq: 1, balanceMicros: 5_000_000, recent: [], grants: ["g1"] });
    const debited = nextHead(first, { key: "t1", kind: "turn", micros: -1_500 })!;
    expect(debited).to.deep.equal({ seq: 2, balanceMicros: 4_998_500, recent: ["t1"], grants: ["g1"] });
    expect(nextHead(debited, { key: "t1", kind: "turn", micros: -1_500 })).to.equal(null);
    expect(nextHead(debited, { key: "g1", kind: "grant", micros: 5_000_000 })).to.equal(null);
    // A debit may take the balance below zero: what a turn spent is owed.
    expect(nextHead(debited, { key: "t2", kind: "turn", micros: -5_000_000 })!.balanceMicros).to.equal(-1_500);
  });

  it("windows are bounded, and turns never push a grant out of memory", () => {
    let head: CreditHead | null = nextHead(null, { key: "g0", kind: "grant", micros: 1 });
    for (let i = 0; i < TURN_WINDOW + 10; i++) head = nextHead(head, { key: `t${i}`, kind: "turn", micros: -1 });
    expect(head!.recent).to.have.length(TURN_WINDOW);
    expect(head!.recent[0]).to.equal("t10");
    expect(nextHead(head, { key: "g0", kind: "grant", micros: 1 })).to.equal(null);
    for (let i = 1; i <= GRANT_WINDOW; i++) head = nextHead(head, { key: `g${i}`, kind: "grant", micros: 1 });
    expect(head!.grants).to.have.length(GRANT_WINDOW).and.not.include("g0");
  });

  it("refuses a balance that would stop being an exact integer", () => {
    const rich: CreditHead = { seq: 9, balanceMicros: Number.MAX_SAFE_INTEGER - 10, recent: [], grants: [] };
    expect(() => nextHead(rich, { key: "g", kind: "grant", micros: MAX_GRANT_MICROS })).to.throw(/balance above/);
  });
});
