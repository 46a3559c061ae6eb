/**
 * The terminal toolset: `terminal` runs a shell command in the session's workspace, in the foreground
 * (its output when it ends) or in the background (an id at once); `process` manages the background
 * ones: list, poll (new output), log (paged by lines), wait, kill, write (to its input). Answers of
 * `process` and of a background start are JSON objects, as in the open harness these tools follow.
 */
import { BackgroundProcesses, type BackgroundProcess } from "./background.js";
import { redactor } from "./redact.js";
import {
  killUser,
  runInSandbox,
  runsBackground,
  sandboxUser,
  SANDBOX_TIMEOUT_MS,
  type SandboxLimits,
  type SandboxPlace,
  type ToolPlace,
} from "./sandbox/sandbox.js";
import type { NetworkLease } from "./sandbox/session-networks.js";

export interface TerminalContext extends ToolPlace {
  sessionId: string;
  signal: AbortSignal;
}

export interface TerminalOutcome {
  ok: boolean;
  text: string;
}

type Input = Record<string, unknown>;

const DEFAULT_WAIT_S = 30;
const DEFAULT_LOG_LINES = 200;
const COMMAND_SHOWN = 200;

const fail = (text: string): TerminalOutcome => ({ ok: false, text });
const answer = (value: unknown): TerminalOutcome => ({ ok: true, text: JSON.stringify(value) });
const seconds = (from: Date, to: Date | null) => Math.round(((to ?? new Date()).getTime() - from.getTime()) / 1000);

/** A process's state: running, or exited with its code (or the signal that ended it, and why). */
function state(p: BackgroundProcess): Record<string, unknown> {
  if (p.running) return { status: "running" };
  return { status: "exited", exit_code: p.exitCode, ...(p.signal ? { signal: p.signal } : {}), ...(p.note ? { note: p.note } : {}) };
}

function summary(p: BackgroundProcess): Record<string, unknown> {
  const command = p.command.length > COMMAND_SHOWN ? `${p.command.slice(0, COMMAND_SHOWN)}…` : p.command;
  return { id: p.id, command, pid: p.child.pid ?? null, ...state(p), started_at: p.startedAt.toISOString(), runtime_seconds: seconds(p.startedAt, p.endedAt) };
}

/** State and the output written since the last poll (what of it the ring no longer holds is counted). */
function poll(p: BackgroundProcess): Record<string, unknown> {
  const { text, lost } = p.output.since(p.polled);
  p.polled = p.output.end;
  return { id: p.id, ...state(p), runtime_seconds: seconds(p.startedAt, p.endedAt), output: text, ...(lost > 0 ? { output_dropped_chars: lost } : {}) };
}

/** Kept output by lines: `limit` lines from `offset`, or the last `limit` lines without one. */
function log(p: BackgroundProcess, offset: number | undefined, limit: number): Record<string, unknown> {
  const { text, dropped } = p.output.kept();
  const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
  const from = offset ?? Math.max(0, lines.length - limit);
  const shown = lines.slice(from, from + limit);
  return {
    id: p.id,
    ...state(p),
    offset: from,
    lines: shown.length,
    total_lines: lines.length,
    output: shown.join("\n"),
    ...(dropped > 0 ? { output_dropped_chars: dropped } : {}),
  };
}

/** An id this worker never gave: a background process lives on the worker that started it (docs/decisions/tools-and-sandbox.md). */
const elsewhere = (id: string) =>
  `background process ${id} is not on the worker running this turn: a background process can be managed only from the worker that started it, which is another one or has since stopped (its processes were then killed); process list shows the ones here`;

export class TerminalTools {
  readonly processes: BackgroundProcesses;

  constructor(
    private readonly limits: SandboxLimits,
    backgroundTimeoutMs: number,
  ) {
    this.processes = new BackgroundProcesses(backgroundTimeoutMs);
  }

  /** Where the service's own helper processes run for the session (file writes, searches): no deployment variables. */
  place(ctx: TerminalContext): SandboxPlace {
    return { cwd: ctx.workspace, user: ctx.user, limits: this.limits, isolation: ctx.isolation };
  }

  /**
   * Where an agent's command runs: with the deployment's variables, read now (a rotated secret applies
   * from the next command on); in namespaces, on the session's network, held until the command ends
   * (`release`). A string says why it cannot run.
   */
  private async agentPlace(ctx: TerminalContext): Promise<{ place: SandboxPlace; release: () => void } | string> {
    const environment = await ctx.environment();
    if (!environment.ok) return environment.problem;
    let lease: NetworkLease | null = null;
    try {
      lease = ctx.network ? await ctx.network() : null;
    } catch (err) {
      return `the session's network could not be made here: ${(err as Error).message}`;
    }
    const place = { ...this.place(ctx), env: environment.env, ...(lease ? { network: lease.path } : {}) };
    return { place, release: () => lease?.release() };
  }

  /** `terminal {command, background?, timeout?}`, its input already checked against its schema. */
  async terminal(input: Input, ctx: TerminalContext): Promise<TerminalOutcome> {
    const command = String(input.command);
    const timeoutMs = typeof input.timeout === "number" ? input.timeout * 1000 : undefined;
    if (input.background !== true) return this.run("/bin/sh", ["-c", command], ctx, timeoutMs);
    const agent = await this.agentPlace(ctx);
    if (typeof agent === "string") return fail(agent);
    const started = this.processes.start(ctx.sessionId, command, agent.place, timeoutMs);
    if ("problem" in started) {
      agent.release();
      return fail(started.problem);
    }
    const p = started.process;
    void p.exited.then(agent.release);
    return answer({
      id: p.id,
      pid: p.child.pid ?? null,
      status: "running",
      note: "started in the background; use the process tool with this id (poll, log, wait, write, kill)",
    });
  }

  /**
   * Runs a command of the agent's in the foreground. Its group is killed when it ends; with no background
   * process of the session running (on any worker of this machine: they carry a mark /proc shows), so
   * is every process of the session's user: what left the group (`setsid`) does not outlive the call.
   * Not a deployment's user, which its other threads share: isolated, the command's PID namespace ends
   * with it anyway; not isolated, what left the group lives until the deployment's teardown.
   */
  async run(command: string, args: string[], ctx: TerminalContext, timeoutMs = SANDBOX_TIMEOUT_MS): Promise<TerminalOutcome> {
    const agent = await this.agentPlace(ctx);
    if (typeof agent === "string") return fail(agent);
    const result = await runInSandbox(command, args, agent.place, ctx.signal, timeoutMs).finally(agent.release);
    if (ctx.user && ctx.soleUser && !(await runsBackground(ctx.user))) await killUser(ctx.user);
    return { ok: result.ok, text: redactor(agent.place.env ?? {})(result.text) };
  }

  /**
   * A file tool's answer without the deployment's secret values (as they are now): the agent's commands
   * have the variables and may have written one into a file. Nothing is shown when they cannot be read.
   */
  async withoutSecrets(ctx: TerminalContext, outcome: TerminalOutcome): Promise<TerminalOutcome> {
    const environment = await ctx.environment();
    return environment.ok ? { ok: outcome.ok, text: redactor(environment.env)(outcome.text) } : fail(environment.problem);
  }

  /** A background process's answer, its output without the deployment's secret values (as they are now). */
  private async shown(ctx: TerminalContext, value: Record<string, unknown>): Promise<TerminalOutcome> {
    if (typeof value.output !== "string" || value.output === "") return answer(value);
    const environment = await ctx.environment();
    return answer({ ...value, output: redactor(environment.ok ? environment.env : {})(value.output) });
  }

  /** `process {action, id?, data?, timeout?, offset?, limit?}`, its input already checked against its schema. */
  async process(input: Input, ctx: TerminalContext): Promise<TerminalOutcome> {
    const action = String(input.action);
    if (action === "list") return answer({ processes: this.processes.list(ctx.sessionId).map(summary) });
    if (typeof input.id !== "string") return fail(`input.id is required for ${action}: the id terminal gave when it started the process`);
    const p = this.processes.get(ctx.sessionId, input.id);
    if (!p) return fail(this.processes.issued(input.id) ? `no background process ${input.id} in this session (process list shows them)` : elsewhere(input.id));
    switch (action) {
      case "poll":
        return this.shown(ctx, poll(p));
      case "log":
        return this.shown(
          ctx,
          log(p, typeof input.offset === "number" ? input.offset : undefined, typeof input.limit === "number" ? input.limit : DEFAULT_LOG_LINES),
        );
      case "wait": {
        await p.settled((typeof input.timeout === "number" ? input.timeout : DEFAULT_WAIT_S) * 1000, ctx.signal);
        return this.shown(ctx, { ...poll(p), ...(p.running ? { timed_out: true } : {}) });
      }
      case "kill":
        p.stop("killed with process kill");
        await p.settled(5_000);
        return this.shown(ctx, poll(p));
      default: {
        if (typeof input.data !== "string") return fail("input.data is required for write: the text to send to the process's input");
        const problem = await p.write(input.data);
        return problem ? fail(problem) : answer({ id: p.id, ...state(p), bytes_written: Buffer.byteLength(input.data) });
      }
    }
  }

  /**
   * The session was archived or deleted: its background processes go and, when its workspace is on this
   * machine (`everything`), every process of its user, those that left their process group too.
   */
  endSession(sessionId: string, everything: boolean): Promise<void> {
    return this.processes.endSession(sessionId, everything ? sandboxUser(sessionId) : null);
  }

  close(): Promise<void> {
    return this.processes.close(sandboxUser);
  }
}
