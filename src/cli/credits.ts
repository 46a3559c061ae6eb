/**
 * `credits grant | show`: an organization's credit balance, over MongoDB alone. The first grant makes the
 * organization metered (its turns are debited, and refused at zero); with `--id`, running a grant again
 * applies it once.
 */
import { randomUUID } from "node:crypto";
import type { Command } from "commander";
import { formatUsd, parseUsd } from "../accounts/domain/credits.js";
import { isAppError } from "../errors.js";
import { CreditService } from "../accounts/credits.js";
import { CreditStore } from "../accounts/store/credits.js";
import { OrganizationStore } from "../accounts/store/organizations.js";
import { operatorConfig, withMongo } from "./backends.js";
import { noOrganization, orgName } from "./keys.js";
import { checked, usageError } from "./program.js";

const grantId = checked((raw) => (/^[A-Za-z0-9._:-]{1,100}$/.test(raw) ? raw : { problem: "a grant id is 1..100 of A-Z a-z 0-9 . _ : -" }));

/** Runs `work` with the organization's id and the credit service. */
function withCredits(org: string, work: (orgId: string, credits: CreditService) => Promise<string>): Promise<void> {
  return withMongo(
    operatorConfig(),
    async (db) => {
      const orgId = await new OrganizationStore(db).idOf(org);
      if (!orgId) throw noOrganization(org);
      process.stdout.write(`${await work(orgId, new CreditService(new CreditStore(db)))}\n`);
    },
    { indexes: true },
  );
}

/** `hidden`: the top-level alias kept from before the `ops` group. */
export function creditsCommands(program: Command, hidden = false): void {
  const credits = program.command("credits", { hidden }).description("an organization's credit balance");

  credits
    .command("grant")
    .description("add credits to an organization and print its new balance")
    .requiredOption("--org <name>", "the organization", orgName)
    .requiredOption("--usd <amount>", "0..1,000,000 USD with at most 6 decimals, e.g. 25 or 0.50", checked(parseUsd))
    .option("--id <grant-id>", "the grant's id: running the same grant again adds nothing", grantId)
    .action(async (opts: { org: string; usd: { micros: number }; id?: string }, command: Command) => {
      const id = opts.id ?? randomUUID();
      try {
        await withCredits(opts.org, async (orgId, service) => {
          const { applied, balanceMicros } = await service.grant(orgId, opts.usd.micros, id);
          return `balance: ${formatUsd(balanceMicros)} USD${applied ? "" : ` (grant ${id} was already applied)`}`;
        });
      } catch (err) {
        // The ledger's own bound (a balance too large) is a usage problem of this grant.
        if (isAppError(err, "validation_error")) usageError(command, err.message);
        throw err;
      }
    });

  credits
    .command("show")
    .description("print an organization's balance, or that it is not metered")
    .requiredOption("--org <name>", "the organization", orgName)
    .action(async (opts: { org: string }) => {
      await withCredits(opts.org, async (orgId, service) => {
        const { metered, balanceMicros } = await service.balance(orgId);
        return metered ? `balance: ${formatUsd(balanceMicros)} USD` : "not metered: no credit account (ops credits grant makes one)";
      });
    });
}
