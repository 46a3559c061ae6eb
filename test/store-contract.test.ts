/**
 * The store contract (issue 32, "no silent write loss"): every write shape the stores issue, made through
 * the real store modules and read back as exact documents, on the run's MONGO_URL (FerretDB as
 * `npm run services` builds it, here) and on mongo:7 in Docker (testcontainers) when an engine answers.
 * A server the run cannot reach is said so in the output (a pending test), never passed over in silence.
 * Each target ends by checking that every write in src/ was made by a case, in each of its
 * shapes (`store-contract/write-sites.ts`), so a new write or operator fails here until a case covers it.
 */
import { expect } from "chai";
import { agentDataCases } from "./store-contract/agent-data-cases.js";
import { automationCases } from "./store-contract/automations-cases.js";
import { deploymentCases } from "./store-contract/deployments-cases.js";
import { sessionAgentCases } from "./store-contract/sessions-agents-cases.js";
import { openTarget, serverName, type ContractCase, type Target } from "./store-contract/target.js";
import { vaultCases } from "./store-contract/vaults-cases.js";
import { webhookCases } from "./store-contract/webhooks-cases.js";
import { writeSites } from "./store-contract/write-sites.js";
import { env } from "./support/hooks.js";
import { dockerAnswers } from "./support/services.js";

const CASES: ContractCase[] = [...deploymentCases, ...webhookCases, ...sessionAgentCases, ...vaultCases, ...automationCases, ...agentDataCases];

/** Every write site's shapes, each made by a case that names the site; what is not, listed. */
function uncovered(target: Target): string[] {
  const sites = writeSites();
  const problems: string[] = [];
  for (const w of sites) {
    if (w.shape.includes("?")) problems.push(`${w.where} (${w.site}): write its update and options as object literals, so the contract can read their shape`);
    const made = new Set(CASES.filter((c) => c.sites.includes(w.site)).flatMap((c) => [...(target.issued.get(c.title) ?? [])]));
    if (!made.has(w.shape)) problems.push(`${w.where} (${w.site}): "${w.shape}" is made by no case of the store contract (test/store-contract/)`);
  }
  for (const site of new Set(CASES.flatMap((c) => c.sites))) {
    if (!sites.some((w) => w.site === site)) problems.push(`a case names ${site}, which makes no write in src/`);
  }
  return problems;
}

function contract(describeTitle: string, open: () => Promise<Target>): void {
  describe(describeTitle, function () {
    let target: Target;
    const ran = new Set<string>();
    before(async function () {
      this.timeout(300_000);
      target = await open();
      process.stdout.write(`    (${target.label})\n`);
    });
    after(async () => target?.close());

    for (const c of CASES) {
      it(c.title, async () => {
        ran.add(c.title);
        target.recordAs(c.title);
        try {
          await c.run(target);
        } finally {
          target.recordAs(null);
        }
      });
    }

    it("every write in src/ is made by a case, in each of its shapes", function () {
      // A run of some cases only (mocha's --grep) cannot tell: said so, not failed.
      if (ran.size < CASES.length) this.skip();
      expect(uncovered(target)).to.deep.equal([]);
    });
  });
}

/** The run's database with another name: the contract's own, so no other test file's records (or a migration's marker) are in it. */
function contractDatabase(url: string): string {
  const u = new URL(url);
  u.pathname = `${u.pathname}_contract`;
  return u.toString();
}

contract("store contract on the run's MONGO_URL", async () => {
  const { ferret, name } = await serverName(env.mongoUrl);
  const label = ferret ? name : `${name}; not FerretDB, so the contract did not run on FerretDB in this run`;
  return openTarget(contractDatabase(env.mongoUrl), label);
});

if (dockerAnswers()) {
  contract("store contract on mongo:7 (Docker, testcontainers)", async () => {
    const { GenericContainer, Wait } = await import("testcontainers");
    const mongo = await new GenericContainer("mongo:7")
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .start();
    const url = `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}/store_contract`;
    const target = await openTarget(url, (await serverName(url)).name);
    return { ...target, close: async () => void (await Promise.allSettled([target.close().then(() => mongo.stop())])) };
  });
} else {
  describe("store contract on mongo:7", () => {
    it.skip("mongo:7 is not available here: no Docker engine answered, so the contract ran on the run's MONGO_URL only");
  });
}
