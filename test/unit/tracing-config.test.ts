import { expect } from "chai";
import { ConfigError } from "../../src/config.js";
import { tracingConfig } from "../../src/telemetry/tracing-setup.js";

describe("tracing configuration from the standard OTEL_* variables", () => {
  it("is off with nothing set, with OTEL_TRACES_EXPORTER=none, and with OTEL_SDK_DISABLED=true", () => {
    expect(tracingConfig({})).to.equal(null);
    expect(tracingConfig({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).to.equal(null);
    expect(tracingConfig({ OTEL_SDK_DISABLED: "true", OTEL_TRACES_EXPORTER: "otlp" })).to.equal(null);
  });

  it("is on with OTEL_TRACES_EXPORTER=otlp, or with an OTLP endpoint and no exporter named", () => {
    expect(tracingConfig({ OTEL_TRACES_EXPORTER: "otlp" })).to.not.equal(null);
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).to.not.equal(null);
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" })).to.not.equal(null);
  });

  it("takes the sampler, the batch delay and the content opt-in", () => {
    const config = tracingConfig({
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
    })!;
    expect(config.sampler.toString()).to.include("0.25");
    expect(config.scheduleDelayMs).to.equal(200);
    expect(config.captureContent).to.equal(true);
    expect(tracingConfig({ OTEL_TRACES_EXPORTER: "otlp" })!.captureContent).to.equal(false);
    expect(tracingConfig({ OTEL_TRACES_EXPORTER: "otlp" })!.sampler.toString()).to.include("AlwaysOnSampler");
  });

  it("refuses what it cannot honour, naming the variable", () => {
    const refused = (env: Record<string, string>) => expect(() => tracingConfig(env)).to.throw(ConfigError);
    refused({ OTEL_TRACES_EXPORTER: "zipkin" });
    refused({ OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" });
    refused({ OTEL_TRACES_EXPORTER: "otlp", OTEL_TRACES_SAMPLER: "jaeger_remote" });
    refused({ OTEL_TRACES_EXPORTER: "otlp", OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" });
  });
});
