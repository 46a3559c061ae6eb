/** Structured logging: one JSON object per line on stdout. */
import type { LogLevel } from "./config.js";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/** An error with what explains it: its code (ECONNRESET, 11000…), its cause, and an AggregateError's errors. */
function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const out: Record<string, unknown> = { name: err.name, message: err.message, stack: err.stack };
  const code = (err as Error & { code?: unknown }).code;
  if (typeof code === "string" || typeof code === "number") out.code = code;
  if (err.cause !== undefined) out.cause = serializeError(err.cause);
  if (err instanceof AggregateError) out.errors = err.errors.map(serializeError);
  return out;
}

/** Where log lines go: stdout, or (tests) a sink that also sees the lines below the printed level. */
export type LogSink = (line: string, level: LogLevel) => void;

const stdout: LogSink = (line) => void process.stdout.write(line + "\n");

export function createLogger(level: LogLevel, base: LogFields = {}, sink: LogSink = stdout): Logger {
  const threshold = ORDER[level];
  const write = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (ORDER[lvl] < threshold) return;
    const entry: LogFields = { level: lvl, time: new Date().toISOString(), msg, ...base };
    for (const [k, v] of Object.entries(fields ?? {})) entry[k] = k === "err" ? serializeError(v) : v;
    sink(JSON.stringify(entry), lvl);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, sink),
  };
}

/** Whether a line of `level` is printed at the configured `threshold`. */
export const printedAt = (level: LogLevel, threshold: LogLevel) => ORDER[level] >= ORDER[threshold];
