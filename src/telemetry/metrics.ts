/**
 * The process's Prometheus metrics, one registry per process (a scrape target is a process): the
 * series every layer records into, and the gauges read from Redis when scraped. Label values are
 * always from bounded sets: route templates, stop reasons, built-in tool names (any other tool is
 * counted by its kind), allowance resources.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export const httpDuration = new Histogram({
  name: "http_request_duration_seconds",
  help: "HTTP requests of the core interface by route template (never the raw path) and status; an event stream is timed until it is open (its clients are sse_clients).",
  labelNames: ["method", "route", "status"] as const,
  buckets: SECONDS,
  registers: [registry],
});

export const turnsStarted = new Counter({
  name: "turns_started_total",
  help: "Turns a worker began running (a turn a crashed worker left is counted again by the worker that resumes it).",
  registers: [registry],
});

export const turnsEnded = new Counter({
  name: "turns_ended_total",
  help: "Turns ended, by stop reason.",
  labelNames: ["stop_reason"] as const,
  registers: [registry],
});

export const modelCallDuration = new Histogram({
  name: "model_call_duration_seconds",
  help: "Model calls of turns, by outcome (ok, error, aborted).",
  labelNames: ["outcome"] as const,
  buckets: SECONDS,
  registers: [registry],
});

export const toolCallDuration = new Histogram({
  name: "tool_call_duration_seconds",
  help: "Tool calls a worker ran: built-in tools by name, MCP tools as `mcp`; by outcome (ok, error).",
  labelNames: ["tool", "outcome"] as const,
  buckets: SECONDS,
  registers: [registry],
});

export const sseClients = new Gauge({
  name: "sse_clients",
  help: "Event streams open on this process.",
  registers: [registry],
});

export const rateLimited = new Counter({
  name: "rate_limited_total",
  help: "Requests refused with 429, by resource (conversations, messages; `requests` for the per-key ceiling, `streams` for the open event streams).",
  labelNames: ["resource"] as const,
  registers: [registry],
});

export const storeErrors = new Counter({
  name: "store_errors_total",
  help: "Errors of the stores: Redis connection errors, MongoDB heartbeat failures, and requests that failed on either.",
  labelNames: ["store"] as const,
  registers: [registry],
});

/** What the wake-up gauges read when scraped: the stream's backlog, and how old its oldest unacknowledged entry is. */
export interface WakeupBacklog {
  /** Entries not acknowledged: delivered to a worker and not yet handled, plus those no worker has read. */
  backlog: number;
  /** Age of the oldest of them, from its entry id's time (0: none). */
  oldestAgeSeconds: number;
}

let wakeupSource: (() => Promise<WakeupBacklog>) | undefined;

/** Where the wake-up gauges read from (the composition root sets it; the last process part started wins). */
export function readWakeupsFrom(source: () => Promise<WakeupBacklog>): void {
  wakeupSource = source;
}

/** One read per scrape: both gauges are collected at once and share the read in flight. */
let reading: Promise<WakeupBacklog | undefined> | undefined;
function wakeups(): Promise<WakeupBacklog | undefined> {
  const source = wakeupSource;
  if (!source) return Promise.resolve(undefined);
  reading ??= source()
    .catch(() => {
      storeErrors.inc({ store: "redis" });
      return undefined;
    })
    .finally(() => (reading = undefined));
  return reading;
}

new Gauge({
  name: "wakeup_backlog",
  help: "Wake-ups not acknowledged by the workers' group (read from Redis when scraped; absent when Redis could not answer).",
  registers: [registry],
  async collect() {
    const read = await wakeups();
    if (read) this.set(read.backlog);
    else this.reset();
  },
});

new Gauge({
  name: "wakeup_oldest_pending_age_seconds",
  help: "Age of the oldest wake-up not acknowledged (read with wakeup_backlog, on the same scrape).",
  registers: [registry],
  async collect() {
    const read = await wakeups();
    if (read) this.set(read.oldestAgeSeconds);
    else this.reset();
  },
});

/** The tool label: built-in names are a fixed set; any other name (MCP, custom) is the caller's and is counted by kind. */
export function toolLabel(name: string, builtin: boolean): string {
  return builtin ? name : "mcp";
}

/** Seconds since `started` (a `performance.now()` reading). */
export function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}
