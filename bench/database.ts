/**
 * The MongoDB-wire server a benchmark runs against (FerretDB with its backend, or MongoDB), and the
 * CPU time its processes spend, read from /proc when they run on this machine.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { Db } from "mongodb";

export interface Database {
  /** e.g. "FerretDB v1.24.2 (sqlite)" or "MongoDB 7.0.14". */
  name: string;
  /** Processes whose CPU time counts as the database's: FerretDB, and the PostgreSQL behind it. */
  pids(): number[];
  /** The same processes by what they are (FerretDB, PostgreSQL), each read afresh. */
  parts(): { name: string; pids: number[] }[];
}

function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/** PostgreSQL's processes on this machine (the postmaster and its backends), read afresh: backends come and go. */
function postgresPids(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => comm(pid) === "postgres");
}

export async function describeDatabase(db: Db): Promise<Database> {
  const info = await db.admin().command({ buildInfo: 1 });
  if (typeof info.ferretdbVersion !== "string") return { name: `MongoDB ${String(info.version)}`, pids: () => [], parts: () => [] };
  const status = await db.admin().command({ serverStatus: 1 });
  const pid = Number(status.pid);
  // The backend is a start flag; readable when FerretDB runs on this machine.
  const handler =
    cmdline(pid)
      .find((a) => a.startsWith("--handler="))
      ?.slice("--handler=".length) ?? "backend unknown";
  const local = cmdline(pid).length > 0;
  const backend = () => (local && handler === "postgresql" ? postgresPids() : []);
  return {
    name: `FerretDB ${info.ferretdbVersion} (${handler}${local ? "" : ", not on this machine"})`,
    pids: () => (local ? [pid, ...backend()] : []),
    parts: () => (local ? [{ name: "FerretDB", pids: [pid] }, ...(handler === "postgresql" ? [{ name: "PostgreSQL", pids: backend() }] : [])] : []),
  };
}

/** The Redis server's process, when it runs on this machine (a cluster's nodes are not counted). */
export async function redisPids(redis: { info(section: string): Promise<string> }): Promise<number[]> {
  const pid = Number(/process_id:(\d+)/.exec(await redis.info("server"))?.[1]);
  return pid && cmdline(pid).length > 0 ? [pid] : [];
}

/** CPU seconds (user + system) each process has used so far. */
export function cpuSeconds(pids: number[]): Map<number, number> {
  const ticks = 100; // USER_HZ on Linux
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      // Fields after the parenthesised command name; utime and stime are the 14th and 15th of the line.
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      out.set(pid, (Number(fields[11]) + Number(fields[12])) / ticks);
    } catch {
      /* the process ended */
    }
  }
  return out;
}

/** CPU seconds the processes used between two readings; a process new since `before` counts from zero. */
export function cpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, s] of after) sum += s - (before.get(pid) ?? 0);
  return sum;
}
