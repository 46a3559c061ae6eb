/** Structured logging through pino: one JSON object per line on stdout, secret-bearing fields redacted, the request's id on every line of a request, and the trace's on every line written in a span. */
import { AsyncLocalStorage } from "node:async_hooks";
import { pino, type Logger as Pino } from "pino";
import type { LogLevel } from "./config.js";
import { logTraceFields } from "./telemetry/tracing.js";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/** The request being served, if any: what `runWithRequest` sets and every line logged under it carries. */
const request = new AsyncLocalStorage<{ requestId: string }>();

/** Runs `fn` with `requestId` on every line it logs, down every async path it starts. */
export function runWithRequest<T>(requestId: string, fn: () => T): T {
  return request.run({ requestId }, fn);
}

/**
 * Fields that hold secrets wherever they appear (one level of nesting, as fields are logged): keys,
 * tokens, passwords, authorization headers. Values in free text are kept out at their source.
 */
const SECRET_KEYS = [
  "apiKey",
  "api_key",
  "key",
  "token",
  "accessToken",
  "access_token",
  "refreshToken",
  "refresh_token",
  "clientSecret",
  "client_secret",
  "password",
  "secret",
  "authorization",
  "cookie",
  "x-api-key",
];
const REDACT = SECRET_KEYS.map((k) => `["${k}"]`).flatMap((k) => [k, `*${k}`, `*.headers${k}`]);

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

/** The level a line was written at: the first field, as the formatter puts it. */
const levelOf = (line: string): LogLevel => (/^\{"level":"(\w+)"/.exec(line)?.[1] as LogLevel | undefined) ?? "error";

function wrap(logger: Pino): Logger {
  return {
    debug: (m, f) => logger.debug(f ?? {}, m),
    info: (m, f) => logger.info(f ?? {}, m),
    warn: (m, f) => logger.warn(f ?? {}, m),
    error: (m, f) => logger.error(f ?? {}, m),
    child: (fields) => wrap(logger.child(fields)),
  };
}

export function createLogger(level: LogLevel, base: LogFields = {}, sink: LogSink = stdout): Logger {
  const logger = pino(
    {
      level,
      base,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
      redact: { paths: REDACT, censor: "[redacted]" },
      // The request's id, and the active span's trace and span ids when tracing records.
      mixin: () => {
        const ids = logTraceFields();
        const req = request.getStore();
        return ids ? { ...req, ...ids } : (req ?? {});
      },
    },
    { write: (line: string) => sink(line.endsWith("\n") ? line.slice(0, -1) : line, levelOf(line)) },
  );
  return wrap(logger);
}

/** Whether a line of `level` is printed at the configured `threshold`. */
export const printedAt = (level: LogLevel, threshold: LogLevel) => ORDER[level] >= ORDER[threshold];
