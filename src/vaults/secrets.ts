/**
 * Secrets of an account (organization), referenced by deployments as `sec_<id>`: create, list, read,
 * rotate, delete, which references are not the account's (`missing`, for `422 invalid_secret_ref`), and
 * their values for a deployment's tool processes (`resolve`, the worker's only way to a value). Values
 * go into the store sealed and come out only through `resolve`; every other answer is a `SecretDoc`,
 * which has none, and no message here ever holds one.
 */
import type { secretCreateSchema } from "../../schemas/secret-create.js";
import type { secretUpdateSchema } from "../../schemas/secret-update.js";
import type { FromSchemas } from "../../schemas/index.js";
import { AppError, conflict, notFound, validationError } from "../errors.js";
import type { SecretDoc, SecretStore } from "./store/secrets.js";
import { createKept, keptId, type Kept, type Once } from "../idempotency/index.js";

export type SecretCreateBody = FromSchemas<typeof secretCreateSchema>;
export type SecretUpdateBody = FromSchemas<typeof secretUpdateSchema>;

/** Largest value, in UTF-8 bytes: an environment variable's value, within what `execve` takes. */
export const SECRET_VALUE_BYTES = 64 * 1024;
/** Deployments a refused delete names. */
const NAMED_USERS = 10;

const SECRET_ID = /^sec_[0-9a-z]{1,64}$/;

/** Who names an account's secrets (deployments' secrets maps), so a secret in use is not deleted; supplied at composition. */
export interface SecretUsers {
  /** Ids of what names `secretId` in the organization, sorted, at most `limit`. */
  referencing(orgId: string, secretId: string, limit: number): Promise<string[]>;
}

function checkValue(value: string | undefined): void {
  if (value !== undefined && Buffer.byteLength(value, "utf8") > SECRET_VALUE_BYTES)
    throw validationError(`value: must be at most ${SECRET_VALUE_BYTES} bytes in UTF-8`);
}

/** The list's opaque cursor: the id the page ended at. */
function encodeCursor(before: string): string {
  return Buffer.from(JSON.stringify({ v: 1, before })).toString("base64url");
}

function decodeCursor(cursor: string): string {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    payload = null;
  }
  const p = payload as { v?: unknown; before?: unknown } | null;
  if (!p || p.v !== 1 || typeof p.before !== "string" || !SECRET_ID.test(p.before)) throw validationError("cursor: must be a next_cursor this list returned");
  return p.before;
}

export class SecretService {
  constructor(
    private readonly store: SecretStore,
    private readonly users: SecretUsers,
  ) {}

  /** Refused with `503` (naming VAULT_ENCRYPTION_KEY) when no vault key is configured. */
  async create(orgId: string, body: SecretCreateBody, id?: string): Promise<SecretDoc> {
    checkValue(body.value);
    return this.store.create(orgId, body.name, body.value, id);
  }

  /** A create under an Idempotency-Key (`kept-creates.ts`). */
  createKept(orgId: string, body: SecretCreateBody, once?: Once): Promise<Kept<SecretDoc>> {
    return createKept(
      keptId("sec", once),
      (id) => this.store.get(orgId, id),
      (id) => this.create(orgId, body, id),
    );
  }

  /** Newest first; `next_cursor` stays correct while secrets are created (a new one sorts before every cursor). */
  async list(orgId: string, opts: { limit: number; cursor?: string }): Promise<{ items: SecretDoc[]; nextCursor: string | null }> {
    const page = await this.store.list(orgId, { limit: opts.limit, ...(opts.cursor !== undefined ? { before: decodeCursor(opts.cursor) } : {}) });
    const last = page.items.at(-1);
    return { items: page.items, nextCursor: page.hasMore && last ? encodeCursor(last._id) : null };
  }

  async get(orgId: string, id: string): Promise<SecretDoc> {
    const secret = SECRET_ID.test(id) ? await this.store.get(orgId, id) : null;
    if (!secret) throw notFound("secret");
    return secret;
  }

  /** A new value (rotation) and/or name. Deployments naming the secret get the new value from their next tool process on. */
  async replaceValue(orgId: string, id: string, body: SecretUpdateBody): Promise<SecretDoc> {
    checkValue(body.value);
    const updated = await this.store.replace(await this.get(orgId, id), body);
    if (!updated) throw notFound("secret");
    return updated;
  }

  /** Refused (`409 conflict`, naming them) while a deployment's settings name the secret: its tools would lose the variable. */
  async delete(orgId: string, id: string): Promise<void> {
    const secret = await this.get(orgId, id);
    const users = await this.users.referencing(orgId, id, NAMED_USERS + 1);
    if (users.length > 0) {
      const named = users.slice(0, NAMED_USERS).join(", ") + (users.length > NAMED_USERS ? ", …" : "");
      throw conflict(
        `the secret is named by the secrets of deployment${users.length === 1 ? "" : "s"} ${named}; remove it from them first (PATCH with the variable set to null)`,
      );
    }
    await this.store.delete(secret);
  }

  /** The references among `refs` that are not secrets of the account (in the order given). */
  async missing(orgId: string, refs: string[]): Promise<string[]> {
    const wellFormed = [...new Set(refs.filter((r) => SECRET_ID.test(r)))];
    const found = await this.store.existing(orgId, wellFormed);
    return refs.filter((r) => !found.has(r));
  }

  /**
   * The values of a deployment's secrets map (variable name → reference), opened now; for the tool
   * processes about to start. A reference that is not (or no longer) the account's is `invalid_secret_ref`
   * naming the variable; a value sealed under a key this process lacks is `unavailable`.
   */
  async resolve(orgId: string, map: Record<string, string>): Promise<Record<string, string>> {
    const refs = [...new Set(Object.values(map).filter((r) => SECRET_ID.test(r)))];
    const values = await this.store.open(orgId, refs);
    const lost = Object.entries(map)
      .filter(([, ref]) => !values.has(ref))
      .map(([name]) => name);
    if (lost.length > 0)
      throw new AppError(
        "invalid_secret_ref",
        `secrets.${lost.sort().join(", secrets.")}: ${lost.length === 1 ? "names no secret" : "name no secrets"} of this account`,
      );
    return Object.fromEntries(Object.entries(map).map(([name, ref]) => [name, values.get(ref)!]));
  }
}
