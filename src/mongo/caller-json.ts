/**
 * Objects whose keys the caller chooses (metadata, a custom tool's input_schema) are stored as JSON
 * text: a key such as `$defs` or `a.b` is legal JSON, but not a field name every MongoDB-wire server
 * accepts (FerretDB refuses both), and caller data must never become the database's field names.
 */

export type Stored<T> = { json: string } | T;

export function encode<T>(value: T): { json: string } {
  return { json: JSON.stringify(value) };
}

/** Decodes a stored value; a plain object (stored before this encoding) is returned as it is. */
export function decode<T>(stored: Stored<T>): T {
  if (stored && typeof stored === "object" && "json" in stored && typeof (stored as { json: unknown }).json === "string") {
    return JSON.parse((stored as { json: string }).json) as T;
  }
  return stored as T;
}
