/**
 * `npm run -s keys:create -- --org <name>`: creates the organization if new and a new API key for it.
 * Prints only the key on stdout, so `KEY=$(npm run -s keys:create -- --org acme)` works.
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../config.js";
import { connectMongo, ensureIndexes } from "../store/mongo.js";
import { OrganizationStore } from "../store/organizations.js";

const USAGE = "usage: npm run -s keys:create -- --org <name>";

async function main(): Promise<number> {
  let org: string | undefined;
  try {
    ({ values: { org } } = parseArgs({ options: { org: { type: "string" } }, strict: true }));
  } catch {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (!org || org.trim() === "" || org.length > 200) {
    process.stderr.write(`${USAGE}\n(--org is required, 1..200 characters)\n`);
    return 2;
  }
  const config = loadConfig();
  const mongo = await connectMongo(config.mongoUrl);
  try {
    await ensureIndexes(mongo.db);
    const store = new OrganizationStore(mongo.db);
    const { key } = await store.createKey(await store.ensureOrganization(org.trim()));
    process.stdout.write(`${key}\n`);
    return 0;
  } finally {
    await mongo.client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message = err instanceof ConfigError ? `configuration error: ${err.message}` : err instanceof Error ? err.message : String(err);
    process.stderr.write(`keys:create failed: ${message}\n`);
    process.exit(1);
  },
);
