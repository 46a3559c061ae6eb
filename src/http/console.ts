/**
 * The web console at `/console`: a fixed set of static files (the page and its stylesheet from
 * `console/public`, its ES modules compiled into `dist/console`, the modules of the client package it
 * stands on, `@agent-sessions/client`, and the ESM builds of that package's two dependencies), read once
 * and served from memory. Nothing outside the set is reachable, so no path can escape it. The console
 * calls the API like any client; these files are not API operations and are not in the OpenAPI document.
 * `GET /` redirects to it.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Middleware } from "koa";
import { AppError } from "../errors.js";
import { projectRoot } from "../paths.js";
import type { AppState } from "./context.js";

export const CONSOLE_PREFIX = "/console";
const ASSETS = `${CONSOLE_PREFIX}/assets/`;

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const sha256 = (data: Buffer | string, encoding: "hex" | "base64") => createHash("sha256").update(data).digest(encoding);

function asset(body: Buffer, name: string): Asset {
  const type = TYPES[extname(name)];
  if (!type) throw new Error(`the console holds a file of no known type: ${name}`);
  return { body, type, etag: sha256(body, "hex").slice(0, 32) };
}

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

/**
 * The policy of every console response. Scripts come from the console's own files, plus the page's
 * one inline import map, allowed by its hash; no other inline script or style, no plugin, no frame,
 * no form submission (a form posted without the script would carry the key), and requests to this
 * origin only. Trusted Types with no policy make every HTML-parsing sink throw: text is set as text.
 */
function policy(page: string): string {
  const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(page)?.[1];
  if (importMap === undefined) throw new Error("console/public/index.html has no import map");
  return [
    "default-src 'none'",
    `script-src 'self' 'sha256-${sha256(importMap, "base64")}'`,
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join("; ");
}

/**
 * What the client's modules import by name, each an ES module that imports nothing: served under
 * `vendor/`, where the page's import map points. They are the client workspace's dependencies, which npm
 * installs at the root, so they resolve from here.
 */
const VENDOR = ["eventsource-parser", "openapi-fetch"];

interface Console {
  assets: Map<string, Asset>;
  headers: Record<string, string>;
}

function load(): Console {
  const publicDir = join(projectRoot, "console", "public");
  const modulesDir = join(projectRoot, "dist", "console");
  const assets = new Map<string, Asset>();
  const page = readFileSync(join(publicDir, "index.html"));
  const index = asset(page, "index.html");
  assets.set(CONSOLE_PREFIX, index);
  assets.set(`${CONSOLE_PREFIX}/`, index);
  const add = (dir: string, prefix: string, take: (name: string) => boolean) => {
    for (const path of files(dir)) {
      const name = relative(dir, path).split(sep).join("/");
      if (take(name)) assets.set(ASSETS + prefix + name, asset(readFileSync(path), name));
    }
  };
  const mapsAside = (name: string) => !name.endsWith(".map");
  add(publicDir, "", (name) => name !== "index.html" && mapsAside(name));
  add(modulesDir, "", mapsAside);
  if (!assets.has(`${ASSETS}main.js`)) throw new Error(`the console's modules are not built in ${modulesDir}: run npm run build`);
  // The client's compiled package, its modules only (not its declarations or maps), under `client/`.
  const clientEntry = fileURLToPath(import.meta.resolve("@agent-sessions/client"));
  if (!existsSync(clientEntry)) throw new Error(`the client package is not built (${clientEntry}): run npm run build`);
  add(dirname(clientEntry), "client/", (name) => name.endsWith(".js"));
  for (const name of VENDOR) assets.set(`${ASSETS}vendor/${name}.js`, asset(readFileSync(fileURLToPath(import.meta.resolve(name))), `${name}.js`));
  const headers = {
    "Content-Security-Policy": policy(page.toString("utf8")),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    // Revalidated on every use (the ETag makes that a 304): a new release is seen at once, and the
    // page and its modules never mix versions.
    "Cache-Control": "no-cache",
  };
  return { assets, headers };
}

let loaded: Console | undefined;

export function consoleFiles(): Middleware<AppState> {
  const { assets, headers } = (loaded ??= load());
  return async (ctx, next) => {
    // The root has nothing of its own: a browser opening the service's address lands on the console.
    if (ctx.path === "/" && (ctx.method === "GET" || ctx.method === "HEAD")) {
      ctx.status = 302;
      ctx.redirect(`${CONSOLE_PREFIX}/`);
      return;
    }
    if (ctx.path !== CONSOLE_PREFIX && !ctx.path.startsWith(`${CONSOLE_PREFIX}/`)) return next();
    const file = assets.get(ctx.path);
    if (!file) throw new AppError("not_found", "no such console file");
    if (ctx.method !== "GET" && ctx.method !== "HEAD")
      throw new AppError("method_not_allowed", "the console's files are read with GET", { allow: "GET, HEAD" });
    ctx.set(headers);
    ctx.status = 200;
    ctx.type = file.type;
    ctx.etag = file.etag;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = file.body;
  };
}

/** Where a browser opens the console of a server listening on `host:port` (any address: this machine's name for it). */
export function consoleUrl(host: string, port: number): string {
  const shown = host === "0.0.0.0" || host === "::" || host === "" ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${port}${CONSOLE_PREFIX}/`;
}
