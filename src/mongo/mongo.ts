/** MongoDB connection and the indexes every collection relies on. */
import { storeErrors } from "../telemetry/metrics.js";
import { MongoClient, MongoServerError, type Db } from "mongodb";

export interface Mongo {
  client: MongoClient;
  db: Db;
}

export interface MongoOptions {
  /** Emit the driver's command monitoring events (`commandStarted`, …) on the client; for benchmarks. */
  monitorCommands?: boolean;
}

/**
 * How long an operation waits for a server that accepted it and went silent (one that hangs without
 * closing its connections), after which it fails as unreachable: a request answers 503, a turn waits.
 * Without it such an operation waits forever. Long enough for any command of ours; `socketTimeoutMS`
 * in MONGO_URL replaces it (an index build on a very large collection at start may need more).
 */
const SOCKET_TIMEOUT_MS = 20_000;

export async function connectMongo(url: string, opts: MongoOptions = {}): Promise<Mongo> {
  const socketTimeoutMS = /[?&]sockettimeoutms=/i.test(url) ? {} : { socketTimeoutMS: SOCKET_TIMEOUT_MS };
  const client = new MongoClient(url, {
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    ...socketTimeoutMS,
    monitorCommands: opts.monitorCommands ?? false,
  });
  client.on("serverHeartbeatFailed", () => storeErrors.inc({ store: "mongodb" }));
  await client.connect();
  // The database comes from the URL path (mongodb://host/agent_sessions); the driver's default is "test".
  const db = client.db();
  return { client, db };
}

/**
 * Creates the indexes; idempotent, run at start by every process. Only features FerretDB v1 supports.
 * MongoDB uses them for lists and scoped reads; FerretDB v1 uses none of them for queries (it pushes
 * down only a filter of `_id` alone, which is why every lookup by id is one; docs/decisions/storage-and-ferretdb.md).
 */
export async function ensureIndexes(db: Db): Promise<void> {
  await Promise.all([
    db.collection("organizations").createIndex({ name: 1 }, { unique: true }),
    db.collection("api_keys").createIndex({ hash: 1 }, { unique: true }),
    db.collection("api_keys").createIndex({ orgId: 1 }),
    db.collection("agents").createIndex({ orgId: 1, createdAt: -1, _id: -1 }),
    db.collection("agents").createIndex({ orgId: 1, status: 1, createdAt: -1, _id: -1 }),
    db.collection("agent_versions").createIndex({ agentId: 1, version: -1 }, { unique: true }),
    db.collection("sessions").createIndex({ orgId: 1, createdAt: -1, _id: -1 }),
    db.collection("sessions").createIndex({ orgId: 1, agentId: 1, subjectId: 1, "projected.status": 1 }),
    db.collection("sessions").createIndex({ orgId: 1, agentId: 1, updatedAt: -1 }),
    db.collection("sessions").createIndex({ orgId: 1, "projected.status": 1, createdAt: -1, _id: -1 }),
    db.collection("vaults").createIndex({ orgId: 1, archivedAt: 1, createdAt: -1, _id: -1 }),
    db.collection("vault_credentials").createIndex({ vaultId: 1, archivedAt: 1, createdAt: -1, _id: -1 }),
    db.collection("mcp_installations").createIndex({ createdAt: 1 }),
    db.collection("tool_grants").createIndex({ orgId: 1, agentId: 1, subjectId: 1 }),
    db.collection("memories").createIndex({ orgId: 1, agentId: 1, subjectId: 1, createdAt: 1 }),
    db.collection("automations").createIndex({ orgId: 1, agentId: 1, createdAt: -1, _id: -1 }),
    db.collection("automations").createIndex({ orgId: 1, agentId: 1, subjectId: 1, createdAt: -1, _id: -1 }),
    db.collection("automations").createIndex({ nextRunAt: 1 }),
    db.collection("automation_runs").createIndex({ automationId: 1, createdAt: -1, _id: -1 }),
    db.collection("automation_runs").createIndex({ notify: 1, finishedAt: 1 }),
    db.collection("deployments").createIndex({ orgId: 1, _id: -1 }),
    db.collection("deployments").createIndex({ orgId: 1, customerId: 1, _id: -1 }),
    db.collection("deployments").createIndex({ status: 1, leaseUntil: 1 }),
    db.collection("deployments").createIndex({ "notice.at": 1 }),
    db.collection("webhook_deliveries").createIndex({ status: 1, nextAttemptAt: 1 }),
    db.collection("webhook_deliveries").createIndex({ deploymentId: 1, _id: -1 }),
    db.collection("webhook_deliveries").createIndex({ endpointId: 1, createdAt: -1, _id: -1 }),
    db.collection("webhook_endpoints").createIndex({ orgId: 1, createdAt: -1, _id: -1 }),
    db.collection("workspace_snapshots").createIndex({ expiresAt: 1 }),
    db.collection("secrets").createIndex({ orgId: 1, _id: -1 }),
    db.collection("subject_skills").createIndex({ orgId: 1, agentId: 1, subjectId: 1, name: 1 }, { unique: true }),
  ]);
}

export async function pingMongo(db: Db): Promise<void> {
  await db.command({ ping: 1 });
}

/** A write refused by a unique index: how the stores' commit points (claims, ids chosen beforehand) tell a second writer. */
export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}
