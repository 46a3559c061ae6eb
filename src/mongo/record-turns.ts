/**
 * Runs one read-modify-write of a record while no other writer of it runs (a Redis lock:
 * `src/redis/locks.ts`). Stores whose records several writers change take one: FerretDB v1 applies an
 * update as a read and a whole-document write, so two at once can lose one, whatever their filters.
 */
export type RecordTurns = <T>(id: string, write: () => Promise<T>) => Promise<T>;
