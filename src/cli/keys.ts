/**
 * `keys create | list | revoke`: an organization's API keys. A key's secret is printed once, by
 * `create`, and never stored (only its SHA-256 hash, from which its id is derived); `list` shows what is
 * stored besides the hash. A revoked key is refused at once by a process that has not seen it lately,
 * and by every running API process within its key cache's lifetime (`KEY_CACHE_TTL_MS`).
 */
import { Argument, type Command } from "commander";
import { AppError } from "../errors.js";
import { KEY_CACHE_TTL_MS } from "../accounts/store/key-cache.js";
import { DEFAULT_KEY_SCOPES, KEY_SCOPES, OrganizationStore, type KeyScope, type KeySummary } from "../accounts/store/organizations.js";
import { operatorConfig, withMongo } from "./backends.js";
import { checked } from "./program.js";
import { table, when } from "./text.js";

export const noOrganization = (name: string) => new AppError("not_found", `no organization is named ${JSON.stringify(name)} (ops keys create makes one)`);

const isScope = (s: string): s is KeyScope => (KEY_SCOPES as readonly string[]).includes(s);

export const orgName = checked((raw) => {
  const name = raw.trim();
  return name.length >= 1 && name.length <= 200 ? name : { problem: "an organization's name is 1..200 characters" };
});

const scopeList = checked((raw): KeyScope[] | { problem: string } => {
  const scopes = [...new Set(raw.split(",").map((s) => s.trim()))];
  const unknown = scopes.filter((s) => !isScope(s));
  return unknown.length === 0
    ? scopes.filter(isScope)
    : { problem: `unknown scope ${unknown.map((s) => JSON.stringify(s)).join(", ")} (scopes: ${KEY_SCOPES.join(", ")})` };
});

const keyName = checked((raw) =>
  /^[\x20-\x7e]{1,100}$/.test(raw) && raw.trim() === raw
    ? raw
    : { problem: "a key's name is 1..100 printable ASCII characters, without leading or trailing spaces" },
);

/** Ids are `key_` and the hash's first 32 hex digits (older keys: `key_` and a random id). */
const keyId = checked((raw) =>
  /^key_[0-9a-z]{1,64}$/.test(raw) ? raw : { problem: "a key id is key_ followed by up to 64 lowercase letters and digits (keys list shows them)" },
);

const presented = (k: KeySummary) => ({
  id: k.id,
  name: k.name,
  scopes: k.scopes,
  requestsPerMinute: k.requestsPerMinute,
  createdAt: k.createdAt.toISOString(),
  revokedAt: k.revokedAt?.toISOString() ?? null,
});

/** `hidden`: the top-level alias kept from before the `ops` group. */
export function keysCommands(program: Command, hidden = false): void {
  const keys = program.command("keys", { hidden }).description("an organization's API keys");

  keys
    .command("create")
    .description("create an API key, and its organization when new; prints the key (once: only its hash is kept)")
    .requiredOption("--org <name>", "the organization", orgName)
    .option("--scopes <list>", `comma-separated, of ${KEY_SCOPES.join(", ")} (default: ${DEFAULT_KEY_SCOPES.join(",")})`, scopeList)
    .option("--name <label>", "a name to tell the organization's keys apart in keys list", keyName)
    .option("--json", "print {id, key, org, scopes, name} as JSON")
    .action(async (opts: { org: string; scopes?: KeyScope[]; name?: string; json?: boolean }) => {
      const { name } = opts;
      const scopes = opts.scopes ?? DEFAULT_KEY_SCOPES;
      await withMongo(
        operatorConfig(),
        async (db) => {
          const store = new OrganizationStore(db);
          const { id, key } = await store.createKey(await store.ensureOrganization(opts.org), undefined, scopes, name);
          if (opts.json) return void process.stdout.write(`${JSON.stringify({ id, key, org: opts.org, scopes, name: name ?? null })}\n`);
          // Only the key on stdout, so KEY=$(… keys create …) works; what to revoke it by goes to stderr.
          process.stdout.write(`${key}\n`);
          process.stderr.write(`created ${id} for ${opts.org} (scopes ${scopes.join(",")}); the key is not shown again\n`);
        },
        { indexes: true },
      );
    });

  keys
    .command("list")
    .description("list an organization's keys (revoked ones too), never their secrets")
    .requiredOption("--org <name>", "the organization", orgName)
    .option("--json", "print a JSON array")
    .action(async (opts: { org: string; json?: boolean }) => {
      await withMongo(operatorConfig(), async (db) => {
        const store = new OrganizationStore(db);
        const orgId = await store.idOf(opts.org);
        if (!orgId) throw noOrganization(opts.org);
        const list = (await store.keysOf(orgId)).map(presented);
        if (opts.json) return void process.stdout.write(`${JSON.stringify(list)}\n`);
        const rows = list.map((k) => [k.id, k.name ?? "-", k.scopes.join(","), when(k.createdAt), k.revokedAt ? when(k.revokedAt) : "-"]);
        process.stdout.write(list.length === 0 ? "no keys\n" : table(["ID", "NAME", "SCOPES", "CREATED", "REVOKED"], rows));
      });
    });

  keys
    .command("revoke")
    .description(`revoke a key: refused from then on (running API processes may accept it ${KEY_CACHE_TTL_MS / 1000} s more, from their key cache)`)
    .addArgument(new Argument("<keyId>", "the key's id, as keys list and keys create show it").argParser(keyId))
    .action(async (id: string) => {
      await withMongo(operatorConfig(), async (db) => {
        const store = new OrganizationStore(db);
        const key = await store.keyById(id);
        if (!key) throw new AppError("not_found", `no API key has the id ${id}`);
        const org = (await store.nameOf(key.orgId)) ?? key.orgId;
        if (key.revokedAt || !(await store.revokeKey(id))) {
          const at = (await store.keyById(id))?.revokedAt;
          return void process.stdout.write(`${id} of ${org} was already revoked${at ? ` (${when(at.toISOString())})` : ""}\n`);
        }
        process.stdout.write(`revoked ${id} of ${org}; running API processes refuse it within ${KEY_CACHE_TTL_MS / 1000} s\n`);
      });
    });
}
