/**
 * The MongoDB commands a process sends, from the driver's command monitoring: each command's name,
 * collection, the shape of its filter (field names and operators, values replaced by their type),
 * when it started and how long it took.
 */
import { performance } from "node:perf_hooks";
import type { CommandStartedEvent, CommandSucceededEvent, CommandFailedEvent, Document, MongoClient } from "mongodb";

export interface MongoOp {
  name: string;
  collection: string;
  /** The filter (and for updates, the fields each operator writes), values replaced by their type. */
  shape: string;
  startedAt: number;
  ms?: number;
}

/** Internals the driver sends on its own, which are no work of the service. */
const IGNORED = new Set(["hello", "isMaster", "ismaster", "endSessions", "saslStart", "saslContinue", "ping"]);

/** A value's shape: objects keep their keys (operators included), leaves become their type. */
function shapeOf(value: unknown): string {
  if (value === null) return "null";
  if (value instanceof Date) return "date";
  if (Array.isArray(value)) return `[${value.length > 0 ? shapeOf(value[0]) : ""}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Document).map(([k, v]) => `${k}: ${shapeOf(v)}`);
    return `{${entries.join(", ")}}`;
  }
  return typeof value;
}

/** What an update writes: each operator with the fields it names. */
function updateShape(update: unknown): string {
  if (!update || typeof update !== "object" || Array.isArray(update)) return shapeOf(update);
  return Object.entries(update as Document)
    .map(([op, fields]) => `${op} ${fields && typeof fields === "object" ? Object.keys(fields as Document).join(",") : ""}`)
    .join(" ");
}

function describe(command: Document, name: string): string {
  switch (name) {
    case "find":
    case "count":
    case "distinct":
      return (
        shapeOf(command.filter ?? command.query ?? {}) +
        (command.sort ? ` sort ${shapeOf(command.sort)}` : "") +
        (command.limit ? ` limit ${String(command.limit)}` : "")
      );
    case "update":
      return (command.updates as Document[]).map((u) => `${shapeOf(u.q)} → ${updateShape(u.u)}`).join("; ");
    case "delete":
      return (command.deletes as Document[]).map((d) => shapeOf(d.q)).join("; ");
    case "findAndModify":
      return `${shapeOf(command.query)} → ${updateShape(command.update)}`;
    case "insert":
      return `${(command.documents as Document[]).length} document(s)`;
    case "aggregate":
      return shapeOf(command.pipeline);
    default:
      return "";
  }
}

export class MongoOps {
  private readonly ops = new Map<number, MongoOp>();
  private recorded: MongoOp[] = [];

  /** The client must have been created with `monitorCommands: true`. */
  constructor(client: MongoClient) {
    client.on("commandStarted", (e: CommandStartedEvent) => {
      if (IGNORED.has(e.commandName)) return;
      const collection = typeof e.command[e.commandName] === "string" ? String(e.command[e.commandName]) : "";
      const op: MongoOp = { name: e.commandName, collection, shape: describe(e.command, e.commandName), startedAt: performance.now() };
      this.ops.set(e.requestId, op);
      this.recorded.push(op);
    });
    const done = (e: CommandSucceededEvent | CommandFailedEvent) => {
      const op = this.ops.get(e.requestId);
      if (op) op.ms = e.duration;
      this.ops.delete(e.requestId);
    };
    client.on("commandSucceeded", done);
    client.on("commandFailed", done);
  }

  /** The commands started since the last call, and forgets them. */
  take(): MongoOp[] {
    const out = this.recorded;
    this.recorded = [];
    return out;
  }
}
