/** `npm run -s credits:show -- --org <name>`: prints the organization's balance, or that it is not metered. */
import { formatUsd } from "../domain/credits.js";
import { creditsCommand } from "./credits-command.js";

const USAGE = "usage: npm run -s credits:show -- --org <name>";

creditsCommand("credits:show", USAGE, {}, async ({ orgId, credits }) => {
  const { metered, balanceMicros } = await credits.balance(orgId);
  return metered ? `balance: ${formatUsd(balanceMicros)} USD` : "not metered: no credit account (credits:grant makes one)";
});
