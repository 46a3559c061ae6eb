/**
 * What the credits commands share: their options read strictly (a usage error, or a `validation_error` of
 * the command, exits 2 with the usage on stderr), the organization found by name, the credit service over
 * MongoDB alone, and one line of output.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { ConfigError, loadConfig } from "../config.js";
import { isAppError } from "../errors.js";
import { CreditService } from "../services/credits.js";
import { CreditStore } from "../store/credits.js";
import { connectMongo, ensureIndexes } from "../store/mongo.js";
import { OrganizationStore } from "../store/organizations.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Values = Record<string, string | undefined>;

export interface CreditsContext {
  orgId: string;
  credits: CreditService;
  values: Values;
}

/** Runs a credits command: `run` returns the line printed on stdout; exit 0, 1 on failure, 2 on a usage error. */
export function creditsCommand(name: string, usage: string, options: Options, run: (ctx: CreditsContext) => Promise<string>): void {
  main(usage, options, run).then(
    (code) => process.exit(code),
    (err: unknown) => {
      const message = err instanceof ConfigError ? `configuration error: ${err.message}` : err instanceof Error ? err.message : String(err);
      process.stderr.write(`${name} failed: ${message}\n`);
      process.exit(1);
    },
  );
}

async function main(usage: string, options: Options, run: (ctx: CreditsContext) => Promise<string>): Promise<number> {
  let values: Values;
  try {
    values = parseArgs({ options: { org: { type: "string" }, ...options }, strict: true }).values as Values;
  } catch (err) {
    process.stderr.write(`${usage}\n(${(err as Error).message})\n`);
    return 2;
  }
  const org = values.org?.trim();
  if (!org || org.length > 200) {
    process.stderr.write(`${usage}\n(--org is required, 1..200 characters)\n`);
    return 2;
  }
  const config = loadConfig();
  const mongo = await connectMongo(config.mongoUrl);
  try {
    await ensureIndexes(mongo.db);
    const orgId = await new OrganizationStore(mongo.db).idOf(org);
    if (!orgId) {
      process.stderr.write(`no organization is named ${JSON.stringify(org)} (keys:create makes one)\n`);
      return 1;
    }
    process.stdout.write(`${await run({ orgId, credits: new CreditService(new CreditStore(mongo.db)), values })}\n`);
    return 0;
  } catch (err) {
    if (!isAppError(err, "validation_error")) throw err;
    process.stderr.write(`${usage}\n(${err.message})\n`);
    return 2;
  } finally {
    await mongo.client.close();
  }
}
