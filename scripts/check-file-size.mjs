// Fails when a TypeScript source file is over 300 lines: a file that long holds more than one job.
// Generated files (the client's types) are not written by hand, so not counted.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const MAX_LINES = 300;
const ROOTS = ["src", "schemas", "test", "bench", "console", "clients/typescript/src"];
const GENERATED = "generated";

function* sources(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== GENERATED) yield* sources(path);
    } else if (name.endsWith(".ts")) yield path;
  }
}

const over = ROOTS.flatMap((root) => [...sources(root)])
  .map((path) => ({ path, lines: readFileSync(path, "utf8").split("\n").length - 1 }))
  .filter((f) => f.lines > MAX_LINES);
for (const f of over) console.error(`${f.path}: ${f.lines} lines (at most ${MAX_LINES})`);
process.exit(over.length > 0 ? 1 : 0);
