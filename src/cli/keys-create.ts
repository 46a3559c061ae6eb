/**
 * `npm run -s keys:create -- --org <name> [--scopes api,deployments:read,deployments:write]`: creates the
 * organization if new and a new API key for it, with the scopes given (default `api`, the core
 * interface). Prints only the key on stdout, so `KEY=$(npm run -s keys:create -- --org acme)` works.
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../config.js";
import { connectMongo, ensureIndexes } from "../store/mongo.js";
import { KEY_SCOPES, OrganizationStore, type KeyScope } from "../store/organizations.js";

const USAGE = `usage: npm run -s keys:create -- --org <name> [--scopes <comma-separated: ${KEY_SCOPES.join(", ")}>]`;

const isScope = (s: string): s is KeyScope => (KEY_SCOPES as readonly string[]).includes(s);

async function main(): Promise<number> {
  let org: string | undefined;
  let scopeList: string | undefined;
  try {
    ({ values: { org, scopes: scopeList } } = parseArgs({ options: { org: { type: "string" }, scopes: { type: "string" } }, strict: true }));
  } catch {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (!org || org.trim() === "" || org.length > 200) {
    process.stderr.write(`${USAGE}\n(--org is required, 1..200 characters)\n`);
    return 2;
  }
  const scopes = (scopeList ?? "api").split(",").map((x) => x.trim());
  const unknown = scopes.filter((x) => !isScope(x));
  if (unknown.length > 0 || scopes.length === 0) {
    process.stderr.write(`${USAGE}\n(unknown scope: ${unknown.join(", ") || "none given"})\n`);
    return 2;
  }
  const config = loadConfig();
  const mongo = await connectMongo(config.mongoUrl);
  try {
    await ensureIndexes(mongo.db);
    const store = new OrganizationStore(mongo.db);
    const { key } = await store.createKey(await store.ensureOrganization(org.trim()), undefined, scopes.filter(isScope));
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
