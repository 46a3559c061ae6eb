/**
 * A real OpenTelemetry Collector for the tracing tests (`scripts/otel-collector.sh`: built once from the Go
 * module proxy, cached in the state directory), receiving OTLP over HTTP and writing each export it gets
 * as a line of OTLP JSON, which `spans()` reads back flat.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./ports.js";

export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  /** The resource's attributes (`service.name`, `agent_sessions.role`…). */
  resource: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
type OtlpAttributes = { key: string; value: OtlpValue }[] | undefined;

const valueOf = (v: OtlpValue): unknown =>
  v.arrayValue ? (v.arrayValue.values ?? []).map(valueOf) : (v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue)));
const attributesOf = (list: OtlpAttributes) => Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));

/** Why the collector cannot be had here (no binary built, and no Go to build one), or null. */
export async function collectorUnavailable(): Promise<string | null> {
  try {
    await promisify(execFile)("bash", ["scripts/otel-collector.sh", "build"], { maxBuffer: 16 * 1024 * 1024 });
    return null;
  } catch (err) {
    const text = String((err as { stderr?: string }).stderr ?? err);
    if (text.includes("Go is needed")) return "Go is not installed, so the OpenTelemetry Collector cannot be built (scripts/otel-collector.sh)";
    throw err;
  }
}

export class Collector {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly endpoint: string,
    private readonly output: () => string,
  ) {}

  static async start(): Promise<Collector> {
    const dir = await mkdtemp(join(tmpdir(), "otel-"));
    const port = await freePort();
    const child = spawn("bash", ["scripts/otel-collector.sh", "run", String(port), join(dir, "spans.jsonl")], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const collector = new Collector(child, dir, `http://127.0.0.1:${port}`, () => out);
    for (let i = 0; !(await answers(port)); i++) {
      if (child.exitCode !== null || i > 600) throw new Error(`the collector did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return collector;
  }

  /** Every span the collector has written so far. */
  async spans(): Promise<ExportedSpan[]> {
    const text = await readFile(join(this.dir, "spans.jsonl"), "utf8").catch(() => "");
    const out: ExportedSpan[] = [];
    // The last piece is "" or a line the collector is still writing.
    for (const line of text
      .split("\n")
      .slice(0, -1)
      .filter((l) => l.trim() !== "")) {
      const data = JSON.parse(line) as {
        resourceSpans?: {
          resource?: { attributes?: OtlpAttributes };
          scopeSpans?: { spans?: (Omit<ExportedSpan, "attributes" | "resource"> & { attributes?: OtlpAttributes })[] }[];
        }[];
      };
      for (const rs of data.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? []) out.push({ ...s, parentSpanId: s.parentSpanId ?? "", attributes: attributesOf(s.attributes), resource });
      }
    }
    return out;
  }

  log(): string {
    return this.output();
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((r) => this.child.once("exit", r));
      this.child.kill("SIGTERM");
      await exited;
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}
