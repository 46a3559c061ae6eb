/**
 * The chaos run's MongoDB-wire server, and how it is taken away for a while. When the machine's server is
 * a local FerretDB, the run starts a FerretDB of its own (the same build, the same kind of backend: a
 * PostgreSQL database of its own, or SQLite files in a temporary folder) and stops it outright (SIGKILL),
 * starting it again after the outage, as the issue asks. Otherwise (MongoDB, or a server elsewhere) the
 * path to it is cut by a proxy for the outage, which a client sees the same way.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { MongoClient } from "mongodb";
import { startTcpCut } from "../test/support/tcp-cut.js";
import { freePort } from "../test/support/ports.js";
import { downAndBack, killed } from "./chaos-cluster.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The PostgreSQL database the run's FerretDB keeps its data in, beside the machine's own `ferretdb`. */
const CHAOS_PG_DATABASE = "ferretdb_chaos";

export interface ChaosDatabase {
  /** The server's URL, with `database` as its path. */
  url(database: string): string;
  /** What the outage does, for the report. */
  readonly outageKind: string;
  /** Takes the server away for `downMs`, then gives it back (answering again). */
  outage(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

const withHost = (base: string, host: string, database: string) => {
  const url = new URL(base);
  url.host = host;
  url.pathname = `/${database}`;
  return url.href;
};

/** The binary and backend flag of the local FerretDB behind `base`, or null when it is not one. */
async function localFerretDb(base: string): Promise<{ binary: string; backend: string } | null> {
  const client = new MongoClient(base, { serverSelectionTimeoutMS: 5_000, socketTimeoutMS: 10_000 });
  try {
    await client.connect();
    const admin = client.db().admin();
    if (typeof (await admin.command({ buildInfo: 1 })).ferretdbVersion !== "string") return null;
    const args = readFileSync(`/proc/${Number((await admin.command({ serverStatus: 1 })).pid)}/cmdline`, "utf8").split("\0");
    const backend = args.find((a) => a.startsWith("--postgresql-url=") || a.startsWith("--sqlite-url="));
    return backend ? { binary: args[0]!, backend } : null;
  } catch {
    return null;
  } finally {
    await client.close();
  }
}

/**
 * The backend flag of the run's FerretDB. On PostgreSQL, the database is made as the user the clients
 * authenticate as: FerretDB passes their credentials through, so `base`'s password is that user's.
 */
async function ownBackend(backend: string, dir: string, base: string): Promise<string> {
  if (backend.startsWith("--sqlite-url=")) return `--sqlite-url=file:${dir}/`;
  const pg = new URL(backend.slice("--postgresql-url=".length));
  const psql = ["-w", "-h", pg.hostname, "-p", pg.port || "5432", "-U", decodeURIComponent(pg.username || "postgres"), "-d", "postgres", "-tAc"];
  const env = { ...process.env, PGPASSWORD: decodeURIComponent(new URL(base).password) };
  const run = (sql: string) => promisify(execFile)("psql", [...psql, sql], { encoding: "utf8", env });
  if ((await run(`SELECT 1 FROM pg_database WHERE datname = '${CHAOS_PG_DATABASE}'`)).stdout.trim() !== "1") await run(`CREATE DATABASE ${CHAOS_PG_DATABASE}`);
  pg.pathname = `/${CHAOS_PG_DATABASE}`;
  return `--postgresql-url=${pg.href}`;
}

export async function startChaosDatabase(base: string): Promise<ChaosDatabase> {
  const local = await localFerretDb(base);
  if (!local) {
    const direct = new URL(base);
    const cut = await startTcpCut({ host: direct.hostname, port: Number(direct.port || 27017) });
    return {
      url: (database) => withHost(base, cut.address, database),
      outageKind: "MongoDB cut off",
      async outage(downMs) {
        await cut.cut();
        await sleep(downMs);
        await cut.restore();
      },
      stop: () => cut.close(),
    };
  }
  const dir = await mkdtemp(join(tmpdir(), "chaos-ferretdb-"));
  const port = await freePort();
  const backend = await ownBackend(local.backend, dir, base);
  let child: ChildProcess;
  const spawnIt = () => {
    child = spawn(
      local.binary,
      [backend, `--listen-addr=127.0.0.1:${port}`, "--debug-addr=127.0.0.1:0", `--state-dir=${dir}`, "--telemetry=disable", "--log-level=warn"],
      { stdio: "ignore" },
    );
  };
  // Started again until it answers a ping: a FerretDB met by every client at once can wedge (see decisions).
  const start = async () => {
    spawnIt();
    for (let since = Date.now(); ;) {
      const probe = new MongoClient(withHost(base, `127.0.0.1:${port}`, "admin"), { serverSelectionTimeoutMS: 500, socketTimeoutMS: 2_000 });
      const answered = await probe
        .db()
        .admin()
        .command({ ping: 1 })
        .then(
          () => true,
          () => false,
        );
      await probe.close();
      if (answered) return;
      if (Date.now() - since > 15_000) {
        await kill();
        spawnIt();
        since = Date.now();
      }
      await sleep(100);
    }
  };
  const kill = () => killed(child);
  await start();
  return {
    // Each process's pool well under FerretDB's PostgreSQL pool (50): past it, FerretDB v1.24 can wedge.
    url: (database) => {
      const url = new URL(withHost(base, `127.0.0.1:${port}`, database));
      url.searchParams.set("maxPoolSize", "8");
      return url.href;
    },
    outageKind: "FerretDB stopped (SIGKILL)",
    ...downAndBack(kill, start, dir),
  };
}
