/**
 * A server the store contract runs on: a database of its own, a client the stores under test write
 * through (its commands are recorded, by the case that made them) and one for fixtures and reads back,
 * and the exact-document assertion the cases make.
 */
import { randomBytes } from "node:crypto";
import { expect } from "chai";
import { MongoClient, type Db, type Document } from "mongodb";
import { SecretBox } from "../../src/vaults/store/secret-box.js";
import { shapeOfCommand } from "./write-sites.js";

export interface Target {
  label: string;
  /** The stores under test write through this one. */
  db: Db;
  /** Fixtures (records in an older shape) and reads back; not recorded. */
  raw: Db;
  /** The write shapes each case made the stores issue, by case title. */
  issued: Map<string, Set<string>>;
  recordAs(title: string | null): void;
  close(): Promise<void>;
}

/** What a server calls itself: FerretDB answers `buildInfo` with its own version beside MongoDB's. */
export async function serverName(url: string): Promise<{ ferret: boolean; name: string }> {
  const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 5_000 });
  try {
    const info = await client.db().admin().command({ buildInfo: 1 });
    const ferret = typeof info.ferretdbVersion === "string";
    return { ferret, name: ferret ? `FerretDB ${info.ferretdbVersion} (MongoDB wire ${info.version})` : `MongoDB ${info.version}` };
  } finally {
    await client.close();
  }
}

export async function openTarget(url: string, label: string): Promise<Target> {
  const watched = await MongoClient.connect(url, { monitorCommands: true });
  const plain = await MongoClient.connect(url);
  const issued = new Map<string, Set<string>>();
  let current: string | null = null;
  watched.on("commandStarted", (e) => {
    const shapes = current === null ? null : shapeOfCommand(e.commandName, e.command);
    if (!shapes) return;
    const seen = issued.get(current!) ?? new Set<string>();
    for (const s of shapes) seen.add(s);
    issued.set(current!, seen);
  });
  return {
    label,
    db: watched.db(),
    raw: plain.db(),
    issued,
    recordAs: (title) => void (current = title),
    close: async () => {
      await plain
        .db()
        .dropDatabase()
        .catch(() => undefined);
      await Promise.all([watched.close(), plain.close()]);
    },
  };
}

/** A placeholder in an expected document for a value the store makes (a time, a sealed value, a random salt). */
export class Any {
  constructor(
    readonly what: string,
    readonly test: (v: unknown) => boolean,
  ) {}
}

export const any = {
  date: new Any("a date", (v) => v instanceof Date),
  string: new Any("a string", (v) => typeof v === "string" && v.length > 0),
  sealed: new Any("a sealed value", (v) => !!v && typeof v === "object" && ["k", "iv", "tag", "ct"].every((k) => typeof (v as Document)[k] === "string")),
};

/** `actual` with each value a placeholder of `expected` accepts replaced by that placeholder. */
function accepted(actual: unknown, expected: unknown): unknown {
  if (expected instanceof Any) return expected.test(actual) ? expected : actual;
  if (Array.isArray(expected) && Array.isArray(actual)) return actual.map((v, i) => accepted(v, expected[i]));
  if (expected && actual && typeof expected === "object" && typeof actual === "object" && !(actual instanceof Date)) {
    return Object.fromEntries(Object.entries(actual as Document).map(([k, v]) => [k, accepted(v, (expected as Document)[k])]));
  }
  return actual;
}

/** Reads the document back and asserts it is exactly `expected` (no field more or less; placeholders where the store makes the value). */
export async function expectDoc(t: Target, collection: string, id: string, expected: Document | null): Promise<void> {
  const doc = await t.raw.collection<Document>(collection).findOne({ _id: id as never });
  expect(doc === null ? null : accepted(doc, expected), `${collection} ${id} on ${t.label}`).to.deep.equal(expected);
}

/** One case: the writes it makes through the real store modules, and the documents it reads back. */
export interface ContractCase {
  title: string;
  /** The write sites (`writeSites`: `Class.method`) it exercises. */
  sites: string[];
  run(t: Target): Promise<void>;
}

let made = 0;
/** An id no other case (or run) uses. */
export const uid = (prefix: string) => `${prefix}_contract_${process.pid}_${++made}`;

/** What the stores need beside the database, none of it a store: a vault key, and no-op turns and change notices (Redis's, not under test). */
export const deps = {
  box: new SecretBox(randomBytes(32)),
  changes: { changed: async () => {} },
  turns: <T>(_id: string, write: () => Promise<T>) => write(),
  claims: <T>(claim: () => Promise<T>) => claim(),
};
