/**
 * The layering of the service, checked with the tests (`npm run lint:layers`). The README's "Project
 * layout" draws it:
 *
 *   src/http ──▶ src/services ──▶ src/domain ◀── schemas
 *                     │                ▲
 *                     ▼                │
 *   actors ──▶ src/store, src/redis, src/models, src/tools
 *
 * Shared by all: src/errors.ts, src/ids.ts, src/log.ts, src/config.ts, src/paths.ts, src/lru.ts,
 * src/schema-validation.ts (Ajv and its messages, for request bodies and tool inputs alike).
 */
const LOWER = "^src/(store|redis|models|tools)/";

module.exports = {
  forbidden: [
    {
      name: "domain-is-pure",
      comment:
        "Domain rules are pure: they import only the domain, the schemas, ids and errors, and libraries that only compute (cron-parser and cronstrue read schedules); no I/O, no framework.",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { pathNot: ["^src/domain/", "^schemas/", "^src/ids\\.ts$", "^src/errors\\.ts$", "^node_modules/(cron-parser|cronstrue)/"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "domain-imports-no-io-types",
      comment: "Not even the types of an I/O layer: the domain defines its own.",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { path: ["^src/(http|services|store|redis|models|tools)/", "^actors/", "^node_modules/(ioredis|mongodb|koa|@koa)"] },
    },
    {
      name: "domain-does-no-io",
      comment: "No Node built-in module in the domain (files, network, processes, timers all live in the adapters).",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "schemas-are-data",
      comment: "Schemas are the lowest layer: plain data, and the type helper that reads them.",
      severity: "error",
      from: { path: "^schemas/" },
      to: { pathNot: ["^schemas/", "(^|/)node_modules/json-schema-to-ts/"] },
    },
    {
      name: "nothing-below-http-imports-it",
      comment: "HTTP is the outermost layer: services, domain, stores, Redis code, models, tools and actors never import it.",
      severity: "error",
      from: { path: ["^src/(services|domain|store|redis|models|tools)/", "^actors/", "^schemas/"] },
      to: { path: "^src/http/" },
    },
    {
      name: "http-reaches-services-only",
      comment: "Routes call services; only types of stores and Redis code may be named (presenters read documents).",
      severity: "error",
      from: { path: "^src/http/" },
      to: { path: [LOWER, "^actors/"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "services-do-not-run-actors",
      comment: "Workers use services (the transition function); services never reach into the workers.",
      severity: "error",
      from: { path: "^src/services/" },
      to: { path: "^actors/" },
    },
    {
      name: "adapters-do-not-use-services",
      comment: "Stores, Redis code, models and tools are adapters below the services.",
      severity: "error",
      from: { path: LOWER },
      to: { path: ["^src/services/", "^actors/"] },
    },
    {
      name: "one-writer-of-session-state",
      comment: "The compare-and-set append is the session transition function's alone (the composition root builds it). Type-only imports count: an appender handed in needs only its type.",
      severity: "error",
      from: { path: ["^src/", "^actors/"], pathNot: ["^src/services/session-transitions\\.ts$", "^src/runtime\\.ts$"] },
      to: { path: "^src/redis/event-appender\\.ts$" },
    },
    {
      name: "no-cycles",
      severity: "error",
      from: { path: ["^src/", "^actors/", "^schemas/"] },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|test|bench|scripts)/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
