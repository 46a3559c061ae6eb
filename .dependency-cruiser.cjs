/**
 * The layering of the service, checked with the tests (`npm run lint`). `src/` is cut by feature
 * (agents, sessions, streaming, worker, agent-tools, vaults, automations, webhooks, deployments, ...);
 * inside a feature the layers are folders, each feature having those it needs:
 *
 *   <feature>/http/ ──▶ <feature>/*.ts (services) ──▶ <feature>/domain/ ◀── schemas/
 *                               │                          ▲
 *                               ▼                          │
 *            <feature>/store/, <feature>/redis/ (adapters over MongoDB and Redis)
 *
 * Shared by all: the edge (`src/http/`: app, route helper, middleware, errors), the stores'
 * infrastructure (`src/mongo/`, `src/redis/`), the outbound policy (`src/outbound/`), the model
 * providers (`src/providers/`), telemetry, and the basics at `src/*.ts` (config, errors, ids, log,
 * paths, lru, schema validation). `src/roles/` composes the processes.
 */
const FEATURES = "(accounts|agents|agent-tools|automations|deployments|health|idempotency|sessions|streaming|vaults|webhooks|worker)";
const DOMAIN = "^src/[^/]+/domain/";
const HTTP = ["^src/http/", "^src/[^/]+/http/"];
/** Adapters: what talks to a store, a process or the network, below the services. */
const ADAPTERS = ["^src/[^/]+/(store|redis|mcp)/", "^src/(mongo|redis|outbound)/", "^src/(providers|agent-tools)/(?!domain/)"];
/** Services: a feature's own files at its root (the agent tools' are adapters), and the worker's. */
const SERVICES = `^src/${FEATURES.replace("agent-tools|", "")}/[^/]+\\.ts$`;

module.exports = {
  forbidden: [
    {
      name: "domain-is-pure",
      comment:
        "Domain rules are pure: they import only domain rules, the schemas, ids and errors, and libraries that only compute (cron-parser and cronstrue read schedules); no I/O, no framework.",
      severity: "error",
      from: { path: DOMAIN },
      to: {
        pathNot: [DOMAIN, "^schemas/", "^src/ids\\.ts$", "^src/errors\\.ts$", "^node_modules/(cron-parser|cronstrue)/"],
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "domain-imports-no-io-types",
      comment: "Not even the types of an I/O layer: the domain defines its own.",
      severity: "error",
      from: { path: DOMAIN },
      to: { path: [...HTTP, ...ADAPTERS, SERVICES, "^src/roles/", "^node_modules/(ioredis|mongodb|koa|@koa)"] },
    },
    {
      name: "domain-does-no-io",
      comment: "No Node built-in module in the domain (files, network, processes, timers all live in the adapters).",
      severity: "error",
      from: { path: DOMAIN },
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
      comment: "HTTP is the outermost layer: services, domain, adapters and the worker never import it; only the composition roots do.",
      severity: "error",
      from: { path: "^src/", pathNot: [...HTTP, "^src/roles/", "^src/main\\.ts$"] },
      to: { path: HTTP },
    },
    {
      name: "http-reaches-services-only",
      comment: "Routes call services; only types of stores and Redis code may be named (presenters read documents).",
      severity: "error",
      from: { path: HTTP },
      to: { path: [...ADAPTERS, "^src/worker/"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "services-do-not-run-the-worker",
      comment:
        "Workers use services (the transition function); services never reach into the workers (the turn engine's domain rules and its adapters are for all).",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/worker/", "^src/roles/"] },
      to: { path: "^src/worker/[^/]+\\.ts$" },
    },
    {
      name: "adapters-do-not-use-services",
      comment: "Stores, Redis code, model providers, the outbound policy and the agent's tools are adapters below the services.",
      severity: "error",
      from: { path: ADAPTERS },
      to: { path: [SERVICES, "^src/roles/"] },
    },
    {
      name: "deployments-stand-on-the-core",
      comment:
        "Deployments use the core's services; the core does not reach into deployments. Where the core needs something of them, it declares the interface (where a thread's tools run, who names a secret, records that emit notices, what a deployment's features allow) and the composition hands in the deployments' implementation.",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/deployments/", "^src/roles/", "^src/main\\.ts$"] },
      to: { path: "^src/deployments/" },
    },
    {
      name: "one-writer-of-session-state",
      comment:
        "The compare-and-set append is the session transition function's alone (the composition root builds it, and its parts declare it). Type-only imports count: an appender handed in needs only its type.",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/sessions/transitions\\.ts$", "^src/roles/(core|parts)\\.ts$"] },
      to: { path: "^src/sessions/redis/event-appender\\.ts$" },
    },
    {
      name: "idempotency-has-one-surface",
      comment:
        "Idempotency is one module: outside src/idempotency, code imports only its surface, src/idempotency/index.ts, which names its three jobs (request replay, once-marks, kept creates).",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/idempotency/" },
      to: { path: "^src/idempotency/", pathNot: "^src/idempotency/index\\.ts$" },
    },
    {
      name: "no-cycles",
      severity: "error",
      from: { path: ["^src/", "^schemas/"] },
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
