/**
 * Tracing for every call site in one line: `withSpan` runs a function in a span, and the helpers carry
 * W3C trace context in and out (HTTP headers, wake-up entries). Only the OpenTelemetry API is imported
 * here; `tracing-setup.ts` registers the SDK when an exporter is configured. Until then `enabled` is
 * false and every helper returns at once: no span object, no context switch, no header written.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span } from "@opentelemetry/api";

export { SpanKind, SpanStatusCode, type Attributes, type Context, type Span } from "@opentelemetry/api";

let enabled = false;
let captureContent = false;

/** Called once by `tracing-setup.ts` after it registered the provider, the context manager and the propagator. */
export function tracingStarted(options: { captureContent: boolean }): void {
  enabled = true;
  captureContent = options.captureContent;
}

/** Whether spans are recorded at all; call sites test it before building what only a span would read. */
export const tracing = (): boolean => enabled;

/** Whether message and tool content may go into spans (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`). */
export const capturingContent = (): boolean => enabled && captureContent;

const tracer = () => trace.getTracer("agent-sessions");

/** What the span does when tracing is off: nothing (every method of a non-recording span is empty). */
const NOT_RECORDING: Span = trace.wrapSpanContext({ traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 });

export interface SpanOptions {
  kind?: SpanKind;
  /** The parent, when not the active span (a wake-up's context); `null`: a new trace. */
  parent?: Context | null;
  links?: Link[];
}

/**
 * Runs `fn` inside a new span named `name`, active for everything `fn` starts; ends it when `fn` settles,
 * marking it failed (with the error's type and message, never its fields) when `fn` throws. Off, `fn`
 * runs as it is (`attributes` given as a function are not even built).
 */
export function withSpan<T>(name: string, attributes: Attributes | (() => Attributes), fn: (span: Span) => Promise<T>, options: SpanOptions = {}): Promise<T> {
  if (!enabled) return fn(NOT_RECORDING);
  const parent = options.parent === undefined ? context.active() : (options.parent ?? ROOT_CONTEXT);
  const attrs = typeof attributes === "function" ? attributes() : attributes;
  return tracer().startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: attrs, links: options.links }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Marks a span failed with the error's type and message (messages name no secret: they are what the API answers too). */
export function failed(span: Span, err: unknown): void {
  const error = err instanceof Error ? err : new Error(String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  span.setAttribute("error.type", error.name);
}

/** The active span's `traceparent`, to carry where headers cannot go (a wake-up entry); "" when tracing is off or no span is active. */
export function activeTraceparent(): string {
  if (!enabled) return "";
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? "";
}

/** The context a carried `traceparent` names (a wake-up's, a request's headers); undefined when tracing is off or there is none. */
export function contextFrom(carrier: Record<string, string | string[] | undefined>): Context | undefined {
  if (!enabled || !carrier.traceparent) return undefined;
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/** `headers` with the active span's trace context added (`traceparent`); the same object when tracing is off. */
export function withTraceHeaders<H extends Record<string, string>>(headers: H): H {
  if (!enabled) return headers;
  const out = { ...headers };
  propagation.inject(context.active(), out);
  return out;
}

/** A fetch that sends the trace context of the span active at each call (an MCP connection outlives the spans of its calls). */
export function tracedFetch(fetchFn: typeof fetch): typeof fetch {
  if (!enabled) return fetchFn;
  return (input, init) => {
    const headers = new Headers(init?.headers);
    propagation.inject(context.active(), headers, { set: (h, key, value) => h.set(key, value) });
    return fetchFn(input, { ...init, headers });
  };
}

/** The ids a log line written now carries: those of the active span, when one records. */
export function logTraceFields(): { trace_id: string; span_id: string } | undefined {
  if (!enabled) return undefined;
  const span = trace.getActiveSpan()?.spanContext();
  return span && trace.isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : undefined;
}

/**
 * Where a pass serving several wake-ups sits: a child of the first one's context (its trace goes on
 * there), linked to the others' (their traces point at it). Empty: a new trace.
 */
export function joining(traceparents: readonly string[]): SpanOptions {
  const contexts = traceparents.map((traceparent) => trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }))).filter((c) => c !== undefined);
  const [first, ...rest] = contexts;
  return { parent: first ? trace.setSpanContext(ROOT_CONTEXT, first) : null, links: rest.map((c) => ({ context: c })) };
}
