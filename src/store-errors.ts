/**
 * What a failure says about the stores, told by the errors' shapes (names and messages), so no layer but the
 * stores imports the drivers: which store a request failed on (counted), and whether that store is unreachable
 * (a request answers 503 with `Retry-After`, never 500; a turn waits for it instead of failing).
 */
type Store = "mongodb" | "redis";

/** The MongoDB driver's errors of reaching a server, not of a command the server refused. */
const MONGO_UNREACHABLE = new Set([
  "MongoServerSelectionError",
  "MongoNetworkError",
  "MongoNetworkTimeoutError",
  "MongoNotConnectedError",
  "MongoTopologyClosedError",
  "MongoPoolClearedError",
]);

/**
 * ioredis's errors of a connection that is down: retries run out, or the connection closed under the
 * command (also a pipelined one whose first commands were answered before the close); on a Redis Cluster
 * also no node answering, and a cluster down or moving a slot (CLUSTERDOWN, TRYAGAIN).
 */
const redisUnreachable = (e: Error) =>
  e.name === "MaxRetriesPerRequestError" ||
  e.name === "ClusterAllFailedError" ||
  /^(Connection is closed|Stream isn't writeable|Command aborted due to connection close|None of startup nodes is available|CLUSTERDOWN |TRYAGAIN )/.test(
    e.message,
  );

function* chain(err: unknown): Generator<Error> {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) yield e;
}

/** Whether `err`, or an error it was caused by, came from a store: counted once per failed request. */
export function failedStore(err: unknown): Store | undefined {
  for (const e of chain(err)) {
    if (e.name.startsWith("Mongo")) return "mongodb";
    if (e.name === "ReplyError" || redisUnreachable(e)) return "redis";
  }
  return undefined;
}

/** The store `err` says is unreachable, if it says so. */
export function unreachableStore(err: unknown): Store | undefined {
  for (const e of chain(err)) {
    if (MONGO_UNREACHABLE.has(e.name)) return "mongodb";
    if (redisUnreachable(e)) return "redis";
  }
  return undefined;
}
