/** Locates files shipped beside the build (schemas, Lua scripts) from the project root. */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("package.json not found above " + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

export const projectRoot = findRoot();
export const schemasDir = join(projectRoot, "schemas");
export const luaScriptsDir = join(projectRoot, "src", "redis", "scripts");
