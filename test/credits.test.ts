/**
 * Per-organization credits: turns of a metered organization are debited their cost (through the real
 * Anthropic SDK against the fake Messages API: the mock model costs nothing), refused before they start
 * at a balance of zero, and unmetered organizations run as before. Debits apply once, concurrent ones
 * all apply, and a debit left owed is repaired.
 */
import { expect } from "chai";
import { createLogger } from "../src/log.js";
import { OwedDebits } from "../src/accounts/redis/owed-debits.js";
import { BALANCE_CACHE_MS, CreditService, TurnDebits } from "../src/accounts/credits.js";
import { CreditStore } from "../src/accounts/store/credits.js";
import { isAppError } from "../src/errors.js";
import { useAnthropicService } from "./support/anthropic-service.js";
import { cli } from "./support/cli.js";
import { client } from "./support/server.js";
import { createSession, sendText, settle, until } from "./support/sessions.js";

let orgs = 0;

describe("credits", () => {
  const svc = useAnthropicService();
  const agent = { agent: { modelName: "anthropic/claude-sonnet-4-6", systemPrompt: "Be brief." } };
  const store = () => new CreditStore(svc.server.core.connections.mongo.db);
  /** The balance as MongoDB holds it (not the process's cache). */
  const stored = async (orgId: string) => (await store().head(orgId))?.balanceMicros;

  /** A new organization, its id and a client with its key. */
  async function newOrg() {
    const name = `credits-${process.pid}-${Date.now()}-${++orgs}`;
    const key = await svc.server.newKey(name);
    const orgId = (await svc.server.core.stores.organizations.idOf(name))!;
    return { name, orgId, api: client(svc.server.url, key) };
  }

  it("a metered organization's turn is debited exactly the cost its usage reports", async () => {
    const { orgId, api } = await newOrg();
    await svc.server.core.inner.credits.grant(orgId, 1_000_000, "first");
    svc.fake.push({ text: "Hello.", usage: { input_tokens: 1_200, output_tokens: 345, cache_read_input_tokens: 50, cache_creation_input_tokens: 20 } });
    const { sessionId } = await createSession(api, agent);
    await sendText(api, sessionId, "hi");
    const events = await settle(api, sessionId, 1);
    const usage = events.find((e) => e.type === "session.status_idle").usage;
    expect(usage.cost_status).to.equal("estimated");
    const cost = Math.round(usage.cost_usd * 1_000_000);
    expect(cost).to.be.greaterThan(0);
    // The debit follows the turn's end commit.
    await until(
      () => stored(orgId),
      (b) => b !== 1_000_000,
      15_000,
      "the debit",
    );
    expect(await stored(orgId)).to.equal(1_000_000 - cost);
    // The session's usage total reports the same cost.
    const session = await api.get(`/v1/sessions/${sessionId}`);
    expect(Math.round(session.body.usage.cost_usd * 1_000_000)).to.equal(cost);
  });

  it("a metered organization at zero: the turn ends at once with the error, and no model call is made", async () => {
    const { name, orgId, api } = await newOrg();
    await svc.server.core.inner.credits.grant(orgId, 0, "empty");
    const { sessionId } = await createSession(api, agent);
    expect((await sendText(api, sessionId, "hi")).status).to.equal(202);
    const events = await settle(api, sessionId, 1);
    const idle = events.find((e) => e.type === "session.status_idle");
    expect(idle.payload.stop_reason.type).to.equal("error");
    expect(idle.payload.stop_reason.message)
      .to.match(/^insufficient credits: /)
      .and.include("0.000000 USD");
    expect(events.filter((e) => e.type === "agent.message")).to.have.length(0);
    expect(svc.fake.requests).to.have.length(0);
    expect(await stored(orgId)).to.equal(0);

    // Credits granted by another process (the command line): the very next turn runs.
    expect((await cli(["ops", "credits", "grant", "--org", name, "--usd", "0.5"])).code).to.equal(0);
    svc.fake.push({ text: "Now I can answer." });
    await sendText(api, sessionId, "again");
    const after = await settle(api, sessionId, 2);
    expect(after.filter((e) => e.type === "session.status_idle").at(-1).payload.stop_reason).to.deep.equal({ type: "end_turn" });
    expect(svc.fake.requests).to.have.length(1);
  });

  it("an unmetered organization: turns run as before, and nothing is debited", async () => {
    const { orgId, api } = await newOrg();
    svc.fake.push({ text: "Free as ever.", usage: { input_tokens: 5_000, output_tokens: 500 } });
    const { sessionId } = await createSession(api, agent);
    await sendText(api, sessionId, "hi");
    const events = await settle(api, sessionId, 1);
    expect(events.find((e) => e.type === "session.status_idle").payload.stop_reason).to.deep.equal({ type: "end_turn" });
    expect(svc.fake.requests).to.have.length(1);
    expect(await store().head(orgId)).to.equal(null);
    expect(await svc.server.core.inner.credits.balance(orgId)).to.deep.equal({ metered: false, balanceMicros: 0 });
  });

  it("requirePositive, for what needs a credit account: refuses one without an account or at zero (402 insufficient_credits)", async () => {
    const { credits } = svc.server.core.inner;
    const refused = async (orgId: string) => {
      const err = await credits.requirePositive(orgId).then(
        () => null,
        (e: unknown) => e,
      );
      return isAppError(err, "insufficient_credits");
    };
    const unmetered = (await newOrg()).orgId;
    expect(await refused(unmetered)).to.equal(true);
    const empty = (await newOrg()).orgId;
    await credits.grant(empty, 0, "g");
    expect(await refused(empty)).to.equal(true);
    const funded = (await newOrg()).orgId;
    await credits.grant(funded, 1, "g");
    expect(await refused(funded)).to.equal(false);
  });

  it("a grant made by another process is usable at once: a refusal is never made on a cached balance", async () => {
    const { orgId } = await newOrg();
    class CountedReads extends CreditStore {
      reads = 0;
      override head(id: string) {
        this.reads++;
        return super.head(id);
      }
    }
    const counted = new CountedReads(svc.server.core.connections.mongo.db);
    let now = 0;
    // This process's clock stands still unless moved, so whatever it cached stays fresh.
    const here = new CreditService(counted, () => now);
    const elsewhere = new CreditService(store());
    const refusal = (check: Promise<void>) =>
      check.then(
        () => null,
        (err: { code?: string }) => err.code,
      );

    expect(await refusal(here.requirePositive(orgId))).to.equal("insufficient_credits");
    await elsewhere.grant(orgId, 1_000, "first");
    expect(await refusal(here.requirePositive(orgId))).to.equal(null);
    // What lets work through is cached: a debit made elsewhere shows once the entry is older than BALANCE_CACHE_MS.
    await elsewhere.debit(orgId, "turn:ses_x:turn_1", 2_000);
    const reads = counted.reads;
    expect(await refusal(here.requireTurnCredits(orgId))).to.equal(null);
    expect(counted.reads, "no read while the cached balance admits").to.equal(reads);
    now += BALANCE_CACHE_MS + 1;
    expect(await refusal(here.requireTurnCredits(orgId))).to.equal("insufficient_credits");
    await elsewhere.grant(orgId, 5_000, "second");
    expect(await refusal(here.requireTurnCredits(orgId))).to.equal(null);
    expect(await here.balance(orgId)).to.deep.equal({ metered: true, balanceMicros: 4_000 });
  });

  describe("the ledger", () => {
    it("applies a debit once under its entry id, however often it is applied", async () => {
      const { orgId } = await newOrg();
      const { credits } = svc.server.core.inner;
      await credits.grant(orgId, 10_000, "g1");
      for (let i = 0; i < 3; i++) await credits.debit(orgId, "turn:ses_x:turn_1", 2_500);
      expect(await stored(orgId)).to.equal(7_500);
      expect(await credits.grant(orgId, 10_000, "g1")).to.deep.equal({ applied: false, balanceMicros: 7_500 });
      expect(await credits.debit((await newOrg()).orgId, "turn:ses_y:turn_1", 1)).to.equal(false);
    });

    it("concurrent debits and grants of one organization are all applied, each once (none lost on FerretDB)", async () => {
      const { orgId } = await newOrg();
      const { credits } = svc.server.core.inner;
      await credits.grant(orgId, 1_000_000, "start");
      const debits = Array.from({ length: 24 }, (_, i) => `turn:ses_c:turn_${i}`);
      // Every debit twice, all at once, with two grants among them.
      await Promise.all([...[...debits, ...debits].map((id) => credits.debit(orgId, id, 1_000)), credits.grant(orgId, 5, "a"), credits.grant(orgId, 5, "a")]);
      expect(await stored(orgId)).to.equal(1_000_000 - 24 * 1_000 + 5);
    });

    it("a debit left owed (its writer stopped after the turn's end) is applied by the repair, once", async () => {
      const { orgId } = await newOrg();
      const { credits } = svc.server.core.inner;
      const { redis, keys } = svc.server.core.connections;
      const { eventLog } = svc.server.core.redis;
      await credits.grant(orgId, 100_000, "g");
      const debits = new TurnDebits(credits, new OwedDebits(redis, keys), eventLog, createLogger("error"));
      // A turn of a session with no runtime state has ended: the owed debit is due.
      const usage = {
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
        cost_usd: 0.0123,
        cost_status: "estimated" as const,
        last_turn_latency_ms: 0,
        latency_ms: 0,
      };
      const owed = await debits.owe(orgId, "ses_gone", "turn_1", usage);
      expect(owed).to.include({ entryId: "turn:ses_gone:turn_1", micros: 12_300 });
      await debits.repair();
      expect(await stored(orgId)).to.equal(100_000 - 12_300);
      // Paid: neither the repair nor the writer coming back applies it again.
      await debits.repair();
      await debits.settle(owed!);
      expect(await stored(orgId)).to.equal(100_000 - 12_300);
    });
  });

  describe("the commands credits grant and credits show", () => {
    it("grant adds credits and prints the balance; with --id a re-run applies it once; show prints the balance", async () => {
      const { name, orgId } = await newOrg();
      expect(await cli(["ops", "credits", "show", "--org", name])).to.include({
        code: 0,
        stdout: "not metered: no credit account (ops credits grant makes one)\n",
      });
      const first = await cli(["ops", "credits", "grant", "--org", name, "--usd", "12.5", "--id", "invoice-7"]);
      expect(first, first.stderr).to.include({ code: 0, stdout: "balance: 12.500000 USD\n" });
      const again = await cli(["ops", "credits", "grant", "--org", name, "--usd", "12.5", "--id", "invoice-7"]);
      expect(again).to.include({ code: 0, stdout: "balance: 12.500000 USD (grant invoice-7 was already applied)\n" });
      expect(await cli(["ops", "credits", "grant", "--org", name, "--usd", "0.000001"])).to.include({ code: 0, stdout: "balance: 12.500001 USD\n" });
      expect(await cli(["ops", "credits", "show", "--org", name])).to.include({ code: 0, stdout: "balance: 12.500001 USD\n" });
      // The top-level `credits`, from before the ops group, is the same command.
      expect(await cli(["credits", "show", "--org", name])).to.include({ code: 0, stdout: "balance: 12.500001 USD\n" });
      expect(await stored(orgId)).to.equal(12_500_001);
    });

    it("refuses negative and malformed amounts, unknown organizations and missing options, changing nothing", async () => {
      const { name, orgId } = await newOrg();
      const negative = await cli(["ops", "credits", "grant", "--org", name, "--usd=-5"]);
      expect(negative).to.include({ code: 2, stdout: "" });
      expect(negative.stderr).to.include("negative amounts are refused");
      for (const args of [
        ["--org", name, "--usd", "1.0000001"],
        ["--org", name, "--usd", "ten"],
        ["--org", name],
        ["--usd", "1"],
        ["--org", name, "--usd", "1", "--id", "no spaces"],
      ]) {
        const out = await cli(["ops", "credits", "grant", ...args]);
        expect(out.code, args.join(" ")).to.equal(2);
        expect(out.stdout).to.equal("");
        expect(out.stderr).to.include("Usage: agent-sessions ops credits grant");
      }
      const unknown = await cli(["ops", "credits", "grant", "--org", `${name}-nobody`, "--usd", "1"]);
      expect(unknown).to.include({ code: 1, stdout: "" });
      expect(unknown.stderr).to.include("no organization is named");
      expect(await store().head(orgId)).to.equal(null);
    });
  });
});
