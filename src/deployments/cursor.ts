/**
 * The list's opaque cursor: the id the page ended at, with the filters it was made under, so a cursor
 * used with other filters is refused instead of silently answering another list. Ids sort by creation
 * time, so pages stay correct while deployments are created: a new one sorts before every cursor.
 */
import { validationError } from "../errors.js";

export interface ListFilter {
  customerId?: string;
  status?: string;
}

/** Which list a cursor belongs to. */
export type ListKind = "deployments" | "threads" | "deliveries";

interface Payload {
  v: 1;
  list: ListKind;
  before: string;
  customerId: string | null;
  status: string | null;
}

export function encodeListCursor(list: ListKind, before: string, filter: ListFilter = {}): string {
  const payload: Payload = { v: 1, list, before, customerId: filter.customerId ?? null, status: filter.status ?? null };
  return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

const isPayload = (p: unknown, list: ListKind): p is Payload => {
  const o = p as Partial<Payload> | null;
  return !!o && o.v === 1 && o.list === list && typeof o.before === "string" && /^[a-z]{3}_[0-9a-z]{1,64}$/.test(o.before);
};

/** The id to continue before; 400 for a string that is not a cursor of this list and filters. */
export function decodeListCursor(list: ListKind, cursor: string, filter: ListFilter = {}): string {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    payload = null;
  }
  if (!isPayload(payload, list)) throw validationError("cursor: must be a next_cursor this list returned");
  if (payload.customerId !== (filter.customerId ?? null) || payload.status !== (filter.status ?? null)) {
    throw validationError("cursor: was made for other filters (send the customer_id and status of the request that returned it)");
  }
  return payload.before;
}
