/**
 * Against LangGraph's local Agent Server (langgraph-api, in-memory runtime, a one-node echo graph; pinned
 * and installed by `scripts/peer-server.sh`), the same client shape on both, in alternating rounds:
 *   - BENCH_CONCURRENCY clients, each with a session (ours: mock model; POST user.message, then wait on SSE
 *     for `session.status_idle`) or a thread of its own (theirs: `POST /threads/{id}/runs/wait`), turn
 *     after turn for BENCH_SECONDS: turns per second, p50 and p99, and CPU per turn by process (ours: the
 *     service's process, `node dist/src/main.js` with API and worker, and Redis, FerretDB, PostgreSQL;
 *     theirs: the server's process tree);
 *   - one client, one turn after another (BENCH_SAMPLES turns): p50 and p99.
 * Both servers run in processes of their own and the clients in this one, whose CPU is counted for
 * neither. Each side runs alone: their server is started for its phase and stopped after it, so its idle
 * poll never shares the cores with ours (and a fresh one each round keeps the rounds alike: it keeps every
 * run, and its poll scans them).
 * Their queue's poll is shortened to 1 ms for these rounds (it sleeps 0.5 s between polls as shipped,
 * which alone makes a run take about 1 s); one shorter round then runs theirs as shipped. Then the median
 * of the rounds' ratios, beside issue 38's targets (information, not a verdict).
 * Options: BENCH_SECONDS (10), BENCH_CONCURRENCY (16), BENCH_ROUNDS (3), BENCH_SAMPLES (100),
 * BENCH_SHIPPED_SECONDS (5), BENCH_SHIPPED_SAMPLES (10); PEER_JOBS (16: their job slots, one a client;
 * `langgraph dev` has 10 by default), PEER_PYTHON (python3, ≥ 3.11) for the venv.
 */
import { setMaxListeners } from "node:events";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { describeDatabase, redisPids } from "./database.js";
import { installPeer, PeerServer } from "./peer-server.js";
import { client, cpuFrom, ourSide, theirSide, total, type Group, type Part, type Phase, type Side } from "./peer-sides.js";
import { ServiceProcess } from "./service-process.js";
import { conditions, fixed as f, startService, summary } from "./support.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100);
const SHIPPED_SECONDS = Number(process.env.BENCH_SHIPPED_SECONDS ?? 5);
const SHIPPED_SAMPLES = Number(process.env.BENCH_SHIPPED_SAMPLES ?? 10);
const WARM_UP_TURNS = 5;
/** Between one side's phase and the other's: work a side does after its last answer stays its own. */
const PAUSE_MS = 1000;
const IDLE_MS = 2000;

interface Load {
  rate: number;
  p50: number;
  p99: number;
  limited: number;
  cpu: Part[];
}

interface Latency {
  p50: number;
  p99: number;
  n: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** CPU the side's counted processes spend with no turn running, in ms a second (their queue polls meanwhile). */
async function idle(side: Side): Promise<string> {
  const cpu = cpuFrom(side.groups);
  await sleep(IDLE_MS);
  return f(total(cpu(1)) / (IDLE_MS / 1000), 0, 1);
}

async function load(side: Side, label: string, seconds: number): Promise<Load> {
  const clients = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => side.open(`${label}-${i}`)));
  await Promise.all(clients.map((c) => c.turn()));
  const ms: number[] = [];
  let limited = 0;
  const cpu = cpuFrom(side.groups);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < deadline) {
        const t = await c.turn();
        if (t === null) limited++;
        else ms.push(t);
      }
    }),
  );
  const rate = ms.length / ((performance.now() - started) / 1000);
  return { rate, ...summary(ms), limited, cpu: cpu(ms.length) };
}

async function latency(side: Side, label: string, samples: number): Promise<Latency> {
  const client = await side.open(`${label}-one`);
  for (let i = 0; i < WARM_UP_TURNS; i++) await client.turn();
  const ms: number[] = [];
  while (ms.length < samples) {
    const t = await client.turn();
    if (t !== null) ms.push(t);
  }
  return { ...summary(ms), n: ms.length };
}

function print(name: string, l: Load, one: Latency, seconds: number): void {
  const parts = l.cpu.map((p) => `${p.counted ? "" : "("}${p.name} ${f(p.ms, 0)}${p.counted ? "" : ", not counted)"}`).join("   ");
  console.log(
    `  ${name.padEnd(7)} ${CONCURRENCY} clients, ${seconds} s: ${f(l.rate, 7, 1)} turns/s   p50 ${f(l.p50, 7)} ms   p99 ${f(l.p99, 7)} ms${l.limited ? `   (${l.limited} refused by the message allowance)` : ""}`,
  );
  console.log(`          CPU per turn (ms): ${parts}   all ${f(total(l.cpu), 0)}`);
  console.log(`          1 client, ${one.n} turns: p50 ${f(one.p50, 7)} ms   p99 ${f(one.p99, 7)} ms`);
}

interface Round {
  ours: Load;
  oursOne: Latency;
  theirs: Load;
  theirsOne: Latency;
}

interface Measured {
  l: Load;
  one: Latency;
  idle: string[];
}

async function measure(side: Side, n: number): Promise<Measured> {
  const before = await idle(side);
  const l = await load(side, `round${n}`, SECONDS);
  await sleep(PAUSE_MS);
  const one = await latency(side, `round${n}`, SAMPLES);
  await sleep(PAUSE_MS);
  return { l, one, idle: [before, await idle(side)] };
}

async function round(ours: Phase, theirs: Phase, n: number): Promise<Round> {
  const oursFirst = n % 2 === 0;
  const a = await (oursFirst ? ours : theirs)((side) => measure(side, n));
  const b = await (oursFirst ? theirs : ours)((side) => measure(side, n));
  const [o, t] = oursFirst ? [a, b] : [b, a];
  console.log(`round ${n + 1} (${oursFirst ? "ours" : "theirs"} first; their server started for its phase and stopped after)`);
  print("ours", o.l, o.one, SECONDS);
  print("theirs", t.l, t.one, SECONDS);
  console.log(`  CPU with no turn running (ms a second), before and after each side's phase: ours ${o.idle.join(", ")}   theirs ${t.idle.join(", ")}`);
  return { ours: o.l, oursOne: o.one, theirs: t.l, theirsOne: t.one };
}

const median = (xs: number[]) => summary(xs).p50;
const ratios = (xs: number[]) => xs.map((x) => f(x, 0)).join(" ");

function printRatios(rounds: Round[]): void {
  const rate = rounds.map((r) => r.ours.rate / r.theirs.rate);
  const p50 = rounds.map((r) => r.oursOne.p50 / r.theirsOne.p50);
  const cpu = rounds.map((r) => total(r.ours.cpu) / total(r.theirs.cpu));
  console.log(`median of the ${rounds.length} rounds' ratios, ours ÷ theirs (their poll shortened); issue 38's targets as information:`);
  console.log(`  turns/s, ${CONCURRENCY} clients   ${f(median(rate), 6)}x   (rounds ${ratios(rate)})   target ≥ 5x`);
  console.log(`  p50, 1 client          ${f(median(p50), 6)}x   (rounds ${ratios(p50)})   target ≤ 0.3x`);
  console.log(`  CPU per turn           ${f(median(cpu), 6)}x   (rounds ${ratios(cpu)})`);
  console.log(
    `  our CPU per turn, all processes: ${f(median(rounds.map((r) => total(r.ours.cpu))), 0)} ms median   (rounds ${ratios(rounds.map((r) => total(r.ours.cpu)))})   target ≤ 5 ms`,
  );
}

async function shippedRound(medians: { rate: number; p50: number; cpu: number }): Promise<void> {
  const server = await PeerServer.start("shipped");
  try {
    const side = theirSide(server, "shipped");
    const idleBefore = await idle(side);
    const l = await load(side, "shipped", SHIPPED_SECONDS);
    await sleep(PAUSE_MS);
    const one = await latency(side, "shipped", SHIPPED_SAMPLES);
    console.log(`theirs as shipped (${server.notes}), one shorter round:`);
    print("shipped", l, one, SHIPPED_SECONDS);
    console.log(`          CPU with no turn running (ms a second): ${idleBefore} before the round, ${await idle(side)} after`);
    console.log(
      `  ours (medians above) ÷ shipped: turns/s ${f(medians.rate / l.rate, 0)}x   p50, 1 client ${f(medians.p50 / one.p50, 0, 3)}x   CPU per turn ${f(medians.cpu / total(l.cpu), 0)}x`,
    );
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  const versions = await installPeer();
  console.log(await conditions());
  console.log(
    `peer: LangGraph's local Agent Server (\`langgraph dev\`, in-memory runtime, one-node echo graph, ${process.env.PEER_JOBS ?? 16} job slots): ${versions}`,
  );
  console.log(
    `load average at the start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  // This process sets the namespace up (organization, key, agent); the service measured runs as deployed.
  const setup = await startService("peer", { ROLE: "api" });
  const abort = new AbortController();
  setMaxListeners(0, abort.signal); // one listener per open stream
  const rounds: Round[] = [];
  let service: ServiceProcess | undefined;
  try {
    service = await ServiceProcess.start(setup);
    const rateLimits = { conversationsPerMinute: 300, messagesPerMinute: 1000 };
    const agent = await service.endpoint.post("/v1/agents", {
      name: "bench",
      modelName: "mock/bench",
      systemPrompt: "You answer.",
      skills: [],
      tools: [],
      rateLimits,
    });
    const database = await describeDatabase(setup.runtime.core.connections.mongo.db);
    const redis = await redisPids(setup.runtime.core.connections.redis);
    const running = service;
    const groups: Group[] = [
      { name: "the service (API and worker)", pids: () => running.pids(), counted: true },
      { name: "Redis", pids: () => redis, counted: true },
      ...database.parts().map((p) => ({ name: p.name, pids: () => database.parts().find((d) => d.name === p.name)!.pids, counted: true })),
      client,
    ];
    const oursSide = ourSide(service.endpoint, String(agent.id), groups, abort.signal);
    const ours: Phase = (work) => work(oursSide);
    let notes = "";
    const theirs: Phase = async (work) => {
      const server = await PeerServer.start("shortened");
      try {
        notes ||= server.notes;
        return await work(theirSide(server, "shortened"));
      } finally {
        await server.close();
      }
    };
    for (let n = 0; n < ROUNDS; n++) {
      rounds.push(await round(ours, theirs, n));
      if (n === 0) console.log(`their queue: ${notes}`);
    }
    printRatios(rounds);
  } finally {
    abort.abort();
    await service?.close();
    await setup.close();
  }
  await shippedRound({
    rate: median(rounds.map((r) => r.ours.rate)),
    p50: median(rounds.map((r) => r.oursOne.p50)),
    cpu: median(rounds.map((r) => total(r.ours.cpu))),
  });
  console.log(
    `load average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
