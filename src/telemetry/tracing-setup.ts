/**
 * Starts tracing from the standard OpenTelemetry variables, or leaves it off. On only when an exporter is
 * configured: `OTEL_TRACES_EXPORTER=otlp`, or no `OTEL_TRACES_EXPORTER` and an OTLP endpoint set
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). Off (`none`, `OTEL_SDK_DISABLED=true`,
 * nothing set), no provider is registered and the API's no-op tracer stands. Spans leave by OTLP over
 * HTTP/protobuf, batched; the exporter reads its own `OTEL_EXPORTER_OTLP_*` variables (endpoint, headers,
 * timeout, compression).
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { ConfigError } from "../config.js";
import { tracingStarted } from "./tracing.js";

type Env = Record<string, string | undefined>;

export interface TracingConfig {
  sampler: Sampler;
  /** `OTEL_BSP_SCHEDULE_DELAY`: how long spans wait in the batch (ms). */
  scheduleDelayMs: number;
  captureContent: boolean;
}

/** What the variables ask for; null when tracing stays off. Throws ConfigError for a value it cannot honour. */
export function tracingConfig(env: Env): TracingConfig | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return null;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === "none") return null;
  if (exporter === undefined || exporter === "") {
    if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return null;
  } else if (exporter !== "otlp") {
    throw new ConfigError(`OTEL_TRACES_EXPORTER: only "otlp" and "none" are supported, not "${exporter}"`);
  }
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (protocol && protocol !== "http/protobuf") throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL: only "http/protobuf" is supported, not "${protocol}"`);
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY ?? 5000);
  if (!Number.isFinite(delay) || delay < 0) throw new ConfigError("OTEL_BSP_SCHEDULE_DELAY: must be a number of milliseconds");
  return {
    sampler: samplerOf(env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || "parentbased_always_on", env.OTEL_TRACES_SAMPLER_ARG),
    scheduleDelayMs: delay,
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === "true",
  };
}

/** The sampler `OTEL_TRACES_SAMPLER` names, as the specification lists them (the Jaeger and X-Ray ones aside). */
function samplerOf(name: string, arg: string | undefined): Sampler {
  const ratio = () => {
    const r = arg === undefined ? 1 : Number(arg);
    if (!Number.isFinite(r) || r < 0 || r > 1) throw new ConfigError("OTEL_TRACES_SAMPLER_ARG: must be a ratio between 0 and 1");
    return new TraceIdRatioBasedSampler(r);
  };
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return ratio();
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: ratio() });
    default:
      throw new ConfigError(`OTEL_TRACES_SAMPLER: "${name}" is not supported`);
  }
}

/**
 * Registers the provider, the async-hooks context manager and the W3C propagator when `tracingConfig`
 * says so; answers the flush-and-stop to call at shutdown, or null when tracing stays off.
 */
export function startTracing(env: Env, role: string): { shutdown(): Promise<void> } | null {
  const config = tracingConfig(env);
  if (!config) return null;
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: "agent-sessions", "agent_sessions.role": role }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: config.sampler,
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: config.scheduleDelayMs })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  tracingStarted({ captureContent: config.captureContent });
  return { shutdown: () => provider.shutdown() };
}
