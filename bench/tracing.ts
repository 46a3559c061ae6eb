/**
 * What tracing costs: the send path (POST user.message → 202) and a mock turn (POST → `session.status_idle`
 * over SSE) with tracing off (no OTEL_* variable: no provider registered), and again with it on, exporting
 * every span over OTLP/HTTP to a local OpenTelemetry Collector (`scripts/otel-collector.sh`, built when
 * missing) that writes them to a file; each beside the baseline measured in the same process, in
 * alternating rounds (Redis's raw XADD → XREAD round trip). The sides alternate, off, on, off, on, each in
 * a process of its own (`tracing-run.ts`), so both are sampled across the same stretch of the run.
 * Options: BENCH_SAMPLES (default 200 turns a side and round).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import { conditions, fixed as f, summary } from "./support.js";

interface Side {
  send: number[];
  turn: number[];
  baseline: number[];
  cpuMsPerTurn: number;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

function runSide(env: Record<string, string>): Promise<Side> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_")));
  const child = spawn(process.execPath, ["dist/bench/tracing-run.js"], { env: { ...clean, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) =>
    child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").at(-1)!) as Side) : reject(new Error(`tracing-run exited ${code}`)))),
  );
}

const merge = (a: Side | undefined, b: Side): Side =>
  a
    ? {
        send: [...a.send, ...b.send],
        turn: [...a.turn, ...b.turn],
        baseline: [...a.baseline, ...b.baseline],
        cpuMsPerTurn: (a.cpuMsPerTurn + b.cpuMsPerTurn) / 2,
      }
    : b;

function row(label: string, side: Side): string {
  const [send, turn, base] = [summary(side.send), summary(side.turn), summary(side.baseline)];
  return `    ${label.padEnd(30)} send p50 ${f(send.p50, 6)} p99 ${f(send.p99, 6)} ms   turn p50 ${f(turn.p50, 6)} p99 ${f(turn.p99, 6)} ms   CPU ${f(side.cpuMsPerTurn, 5)} ms/turn   baseline p50 ${f(base.p50, 5)} p99 ${f(base.p99, 5)} ms`;
}

async function main(): Promise<void> {
  const collectorBin = execFileSync("bash", ["scripts/otel-collector.sh", "build"], { encoding: "utf8" }).trim();
  const dir = mkdtempSync(join(tmpdir(), "bench-otel-"));
  const file = join(dir, "spans.jsonl");
  const port = await freePort();
  const collector = spawn("bash", ["scripts/otel-collector.sh", "run", String(port), file], { stdio: "ignore" });
  try {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_SERVICE_NAME: "agent-sessions-bench" };
    let off: Side | undefined;
    let traced: Side | undefined;
    for (let round = 0; round < 2; round++) {
      off = merge(off, await runSide({}));
      traced = merge(traced, await runSide(on));
    }
    const exported = readFileSync(file, "utf8").split("\n").filter(Boolean);
    const spans = exported.reduce((n, line) => n + (line.match(/"spanId"/g)?.length ?? 0), 0);
    console.log("tracing: a warm session on the mock model, one turn after another; each side in its own process, sides alternating");
    console.log(await conditions());
    console.log(`    collector: ${collectorBin} (OTLP/HTTP in, a JSON-lines file out)`);
    console.log("    send = POST user.message → 202; turn = POST → session.status_idle over SSE; baseline = Redis XADD → blocked XREAD, same process");
    console.log(row("tracing off (no exporter)", off!));
    console.log(row("tracing on, exporting (OTLP)", traced!));
    console.log(`    the collector received ${spans} spans (${f(spans / traced!.turn.length, 1, 1)} a turn, warm-up turns included)`);
  } finally {
    collector.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
