/**
 * What the database plans for the commands a piece of code sends: the commands are captured with the
 * driver's command monitoring, then each query is explained on the server that ran it.
 *
 * MongoDB explains every command as sent; an index use is a stage such as IXSCAN, IDHACK,
 * CLUSTERED_IXSCAN or EXPRESS_IXSCAN, and a COLLSCAN anywhere in the winning plan is a scan.
 * FerretDB v1 explains only `find` (it reads the `filter` of whatever it is given), so a write's filter
 * is explained as a `find` with it: its update, findAndModify, delete and count handlers query the
 * backend with the same pushdown as `find`. Its `filterPushdown: true` is the only lookup it does not
 * make by reading every document into FerretDB.
 */
import { MongoClient, type Db, type Document } from "mongodb";

const QUERIES = ["find", "update", "findAndModify", "delete", "count", "aggregate"];
/** Fields the driver adds to a command that explain has no use for. */
const ENVELOPE = ["lsid", "$clusterTime", "$db", "txnNumber", "writeConcern", "readConcern", "$readPreference", "apiVersion"];
const INDEX_STAGES = /^(IXSCAN|IDHACK|CLUSTERED_IXSCAN|COUNT_SCAN|DISTINCT_SCAN|EXPRESS_.+)$/;

export interface Verdict {
  command: string;
  indexed: boolean;
  /** The plan's stages (MongoDB) or the filter and its pushdown (FerretDB), for the failure message. */
  detail: string;
}

/** The stages of every winning plan in an explain answer (an aggregate nests its own); rejected plans are left out. */
function stagesOf(node: unknown, inWinning = false, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) stagesOf(n, inWinning, out);
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "rejectedPlans") continue;
      if (inWinning && k === "stage" && typeof v === "string") out.push(v);
      else stagesOf(v, inWinning || k === "winningPlan", out);
    }
  }
  return out;
}

/** The filters a query command applies, one per statement. */
function filtersOf(name: string, command: Document): Document[] {
  if (name === "update") return (command.updates as Document[]).map((u) => u.q as Document);
  if (name === "delete") return (command.deletes as Document[]).map((d) => d.q as Document);
  if (name === "findAndModify" || name === "count") return [(command.query as Document | undefined) ?? {}];
  if (name === "aggregate") return [((command.pipeline as Document[])[0]?.$match as Document | undefined) ?? {}];
  return [(command.filter as Document | undefined) ?? {}];
}

export class PlanProbe {
  private captured: { name: string; command: Document }[] = [];

  private constructor(
    readonly client: MongoClient,
    readonly db: Db,
    readonly ferret: boolean,
  ) {
    client.on("commandStarted", (e) => this.captured.push({ name: e.commandName, command: e.command }));
  }

  static async open(url: string): Promise<PlanProbe> {
    const client = new MongoClient(url, { monitorCommands: true });
    await client.connect();
    const info = await client.db().admin().command({ buildInfo: 1 });
    return new PlanProbe(client, client.db(), typeof info.ferretdbVersion === "string");
  }

  /** Runs `fn` and judges every query it sent; an empty list means it sent none. */
  async verdicts(fn: () => Promise<unknown>): Promise<Verdict[]> {
    this.captured = [];
    await fn();
    const queries = this.captured.filter((c) => QUERIES.includes(c.name));
    this.captured = [];
    const out: Verdict[] = [];
    for (const { name, command } of queries) out.push(...(await this.judge(name, command)));
    return out;
  }

  private async judge(name: string, command: Document): Promise<Verdict[]> {
    const collection = String(command[name]);
    if (this.ferret) {
      const verdicts: Verdict[] = [];
      for (const filter of filtersOf(name, command)) {
        const res = await this.db.command({ explain: { find: collection, filter } });
        verdicts.push({
          command: `${name} ${collection}`,
          indexed: res.filterPushdown === true,
          detail: `${JSON.stringify(filter)} pushdown=${res.filterPushdown}`,
        });
      }
      return verdicts;
    }
    const sent = Object.fromEntries(Object.entries(command).filter(([k]) => !ENVELOPE.includes(k)));
    const res = await this.db.command({ explain: sent, verbosity: "queryPlanner" });
    const stages = stagesOf(res);
    const indexed = stages.some((s) => INDEX_STAGES.test(s)) && !stages.includes("COLLSCAN");
    return [{ command: `${name} ${collection}`, indexed, detail: `${JSON.stringify(filtersOf(name, command))} stages=${stages.join(",")}` }];
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
