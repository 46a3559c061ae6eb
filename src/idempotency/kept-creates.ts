/**
 * Creates under an Idempotency-Key that survive their process dying between the write and the answer:
 * the resource's id is the key's (`seededId`), so the retry, which takes the key over once the first
 * attempt's lease lapsed, finds what that attempt made (its request is the same: the key's record
 * refuses another) and answers with it instead of making a second.
 */
import { seededId, type IdPrefix } from "../ids.js";
import type { Once } from "./once.js";
import { isDuplicateKey } from "../mongo/mongo.js";

/** The id a create under a key uses, and whether an earlier attempt may have used it already. */
export interface KeptId {
  id: string;
  retaken: boolean;
}

export const keptId = (prefix: IdPrefix, once: Once | undefined): KeptId | undefined =>
  once ? { id: seededId(prefix, once.seed), retaken: once.retaken } : undefined;

/** `replayed`: the resource was made by an earlier attempt under the key, and is answered as made. */
export interface Kept<T> {
  value: T;
  replayed: boolean;
}

/**
 * Runs `create` under the kept id (or a new one, without a key). The resource is looked for first only
 * when an earlier attempt may have made it; a create racing that attempt's write still finds it, by the
 * duplicate id.
 */
export async function createKept<T>(kept: KeptId | undefined, find: (id: string) => Promise<T | null>, create: (id?: string) => Promise<T>): Promise<Kept<T>> {
  if (!kept) return { value: await create(), replayed: false };
  const earlier = kept.retaken ? await find(kept.id) : null;
  if (earlier) return { value: earlier, replayed: true };
  try {
    return { value: await create(kept.id), replayed: false };
  } catch (err) {
    const raced = isDuplicateKey(err) ? await find(kept.id) : null;
    if (raced) return { value: raced, replayed: true };
    throw err;
  }
}
