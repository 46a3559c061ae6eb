/**
 * Every MongoDB write the code makes, found in its source (src/) with the TypeScript parser:
 * each call of a collection's write method, named by the class method (or function) it is written in,
 * with its shape as the server receives it: the command, the update's top-level operators, and
 * `upsert`/`multi`. The contract compares these with the shapes its cases made the stores issue
 * (`shapeOfCommand`), so a write added anywhere, or an operator added to one, fails the suite until a
 * case exercises it. What it cannot see: the values inside an operator (a `$set` of a new map field);
 * those are the cases' to cover, by the rule that caller-keyed maps are stored as values.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import ts from "typescript";
import { projectRoot } from "../../src/paths.js";

export interface WriteSite {
  /** `Class.method` (or `file.function`) the call is written in. */
  site: string;
  shape: string;
  /** `path:line`, for the failure message. */
  where: string;
}

const UPDATE_ARG: Record<string, number> = { updateOne: 1, updateMany: 1, findOneAndUpdate: 1 };
const OPTIONS_ARG: Record<string, number> = { updateOne: 2, updateMany: 2, findOneAndUpdate: 2, replaceOne: 2, findOneAndReplace: 2 };
const COMMAND: Record<string, string> = {
  insertOne: "insert",
  insertMany: "insert",
  updateOne: "update",
  updateMany: "update",
  replaceOne: "update replace",
  findOneAndUpdate: "findAndModify",
  findOneAndReplace: "findAndModify replace",
  findOneAndDelete: "findAndModify remove",
  deleteOne: "delete one",
  deleteMany: "delete many",
  bulkWrite: "update",
};

/** The keys of an object literal; "?" for one it cannot read (a spread, a computed key, not a literal). */
function keysOf(node: ts.Expression | undefined): string[] {
  if (!node) return [];
  if (!ts.isObjectLiteralExpression(node)) return ["?"];
  return node.properties.map((p) => (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : "?"));
}

/** The initializer of the first property `name` anywhere inside `node` (a bulkWrite's operations, however they are built). */
function propertyWithin(node: ts.Node | undefined, name: string): ts.Expression | undefined {
  if (!node) return undefined;
  if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && node.name.text === name) return node.initializer;
  return ts.forEachChild(node, (child) => propertyWithin(child, name));
}

function shapeOf(method: string, args: readonly ts.Expression[]): string {
  // A bulkWrite of updateOne operations reaches the server as one update command of that shape.
  if (method === "bulkWrite") {
    const update = propertyWithin(args[0], "update");
    return update
      ? [
          "update",
          ...keysOf(update)
            .filter((k) => k.startsWith("$") || k === "?")
            .sort(),
        ].join(" ")
      : "bulkWrite ?";
  }
  const ops = Object.hasOwn(UPDATE_ARG, method) ? keysOf(args[UPDATE_ARG[method]!]).filter((k) => k.startsWith("$") || k === "?") : [];
  const options = Object.hasOwn(OPTIONS_ARG, method) ? keysOf(args[OPTIONS_ARG[method]!]) : [];
  const upsert = options.includes("upsert") ? ["upsert"] : options.includes("?") ? ["?"] : [];
  return [COMMAND[method]!, ...ops.sort(), ...upsert, ...(method === "updateMany" ? ["multi"] : [])].join(" ");
}

function siteOf(node: ts.Node, file: string): string {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isMethodDeclaration(n) && ts.isClassDeclaration(n.parent)) return `${n.parent.name?.text ?? "?"}.${n.name.getText()}`;
    if (ts.isFunctionDeclaration(n)) return `${basename(file, ".ts")}.${n.name?.text ?? "?"}`;
    if (ts.isVariableDeclaration(n) && ts.isSourceFile(n.parent.parent.parent)) return `${basename(file, ".ts")}.${n.name.getText()}`;
  }
  return `${basename(file, ".ts")}.<top>`;
}

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) yield path;
  }
}

export function writeSites(roots = ["src"]): WriteSite[] {
  const found: WriteSite[] = [];
  for (const path of roots.flatMap((r) => [...sources(join(projectRoot, r))])) {
    const file = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && Object.hasOwn(COMMAND, node.expression.name.text)) {
        const line = file.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push({ site: siteOf(node, path), shape: shapeOf(node.expression.name.text, node.arguments), where: `${relative(projectRoot, path)}:${line}` });
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

/** The shape of a write command as the driver sends it (null for a command that writes nothing). */
export function shapeOfCommand(name: string, command: Record<string, unknown>): string[] | null {
  const operators = (update: unknown) =>
    Array.isArray(update)
      ? ["pipeline"]
      : Object.keys(update as object)
          .filter((k) => k.startsWith("$"))
          .sort();
  const updateShape = (prefix: string, update: unknown, upsert: unknown, multi: unknown = false) => {
    const ops = operators(update);
    return [prefix, ...(ops.length === 0 ? ["replace"] : ops), ...(upsert ? ["upsert"] : []), ...(multi ? ["multi"] : [])].join(" ");
  };
  switch (name) {
    case "insert":
      return ["insert"];
    case "update":
      return (command.updates as { u: unknown; upsert?: boolean; multi?: boolean }[]).map((s) => updateShape("update", s.u, s.upsert, s.multi));
    case "findAndModify":
      return [command.remove ? "findAndModify remove" : updateShape("findAndModify", command.update, command.upsert)];
    case "delete":
      return (command.deletes as { limit: number }[]).map((d) => (d.limit === 1 ? "delete one" : "delete many"));
    default:
      return null;
  }
}
