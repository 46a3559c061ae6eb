/**
 * `npm run -s credits:grant -- --org <name> --usd <amount> [--id <grant-id>]`: adds credits to the
 * organization (the first grant makes it metered: its turns are debited, and refused at zero) and prints
 * the new balance. With `--id`, running it again applies the grant once.
 */
import { randomUUID } from "node:crypto";
import { formatUsd, parseUsd } from "../domain/credits.js";
import { validationError } from "../errors.js";
import { creditsCommand } from "./credits-command.js";

const USAGE = "usage: npm run -s credits:grant -- --org <name> --usd <amount, e.g. 25 or 0.50> [--id <grant id: 1..100 of A-Z a-z 0-9 . _ : ->]";
const GRANT_ID = /^[A-Za-z0-9._:-]{1,100}$/;

creditsCommand("credits:grant", USAGE, { usd: { type: "string" }, id: { type: "string" } }, async ({ orgId, credits, values }) => {
  if (values.usd === undefined) throw validationError("--usd is required");
  const amount = parseUsd(values.usd);
  if ("problem" in amount) throw validationError(amount.problem);
  if (values.id !== undefined && !GRANT_ID.test(values.id)) throw validationError("--id is 1..100 of A-Z a-z 0-9 . _ : -");
  const grantId = values.id ?? randomUUID();
  const { applied, balanceMicros } = await credits.grant(orgId, amount.micros, grantId);
  return `balance: ${formatUsd(balanceMicros)} USD${applied ? "" : ` (grant ${grantId} was already applied)`}`;
});
