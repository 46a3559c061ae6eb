/**
 * Random session logs for the transcript tests: a small simulation of the session state machine
 * writing events as the service's plans do (prompts, queued prompts and steers, model calls with text,
 * tool uses, approvals, policy denials, custom tools (some long-running, later replaced in place),
 * clarifications, pauses, interrupts) and changing the status overlay as they do. `read` gives the log
 * as the event log does: after a sequence, a page at a time, each event with the overlay as it now is.
 */
import type { Envelope, EventStatus, Payload } from "../../src/sessions/domain/events.js";

/** A seeded generator (mulberry32), so a failing case can be replayed from its seed. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Call {
  id: string;
  state: "executing" | "waiting" | "approved" | "denied" | "done";
}
interface Overlay {
  status?: EventStatus;
  turnId?: string;
  payload?: Payload;
}

const text = (t: string) => [{ type: "text", text: t }];

export class SessionSimulation {
  private readonly log: Envelope[] = [];
  private readonly overlay = new Map<string, Overlay>();
  private status: "idle" | "running" | "waiting" = "idle";
  private turn: { id: string; events: string[]; calls: Call[] } | null = null;
  private readonly queue: string[] = [];
  private readonly longRunning = new Map<string, string>();
  private steers: string[] = [];
  private ids = 0;

  constructor(private readonly rnd: () => number) {}

  /** Durable events after `after`, at most `limit`, with the overlay as it now stands. */
  read(after: number, limit = Infinity): Envelope[] {
    return this.log.slice(after, after + limit).map((e) => this.current(e));
  }

  /** Events as they now stand (the overlay merged in), as `withOverlay` gives them. */
  current(e: Envelope): Envelope {
    const o = this.overlay.get(e.id);
    const base = this.log[e.sequence - 1]!;
    return o
      ? { ...base, ...(o.status ? { status: o.status } : {}), ...(o.turnId ? { turnId: o.turnId } : {}), ...(o.payload ? { payload: o.payload } : {}) }
      : base;
  }

  get length(): number {
    return this.log.length;
  }

  /** One plan: an inbound batch or a worker's step, whichever the state allows, at random. */
  step(): void {
    const r = this.rnd();
    if (this.status === "idle") {
      if (r < 0.5) this.prompt();
      else if (r < 0.65) this.steer();
      else if (r < 0.85 && this.longRunning.size > 0) this.finalResult();
      else if (r < 0.9) this.unmatchedResult();
      else this.prompt();
    } else if (this.status === "running") {
      if (r < 0.1) this.steer();
      else if (r < 0.18) this.queued();
      else if (r < 0.22) this.endTurn(true);
      else this.modelCall();
    } else {
      if (r < 0.1) this.steer();
      else if (r < 0.15) this.queued();
      else if (r < 0.2) this.endTurn(true);
      else this.answer();
    }
  }

  private id(prefix: string): string {
    return `${prefix}_${++this.ids}`;
  }

  private append(type: string, payload: Record<string, unknown>, opts: { id?: string; turnId?: string | null; status?: EventStatus } = {}): Envelope {
    const e: Envelope = {
      id: opts.id ?? this.id("evt"),
      type,
      sessionId: "ses_sim",
      sequence: this.log.length + 1,
      turnId: opts.turnId === undefined ? (this.turn?.id ?? null) : opts.turnId,
      status: opts.status ?? "complete",
      payload: { type, ...payload },
      processedAt: null,
      createdAt: new Date(0).toISOString(),
    };
    this.log.push(e);
    return e;
  }

  private mark(id: string, change: Overlay): void {
    this.overlay.set(id, { ...this.overlay.get(id), ...change });
  }

  private startTurn(events: string[]): string {
    this.turn = { id: this.id("turn"), events, calls: [] };
    this.status = "running";
    return this.turn.id;
  }

  private prompt(): void {
    const id = this.id("evt");
    const turnId = this.startTurn([id]);
    this.append("user.message", { content: text(`prompt ${id}`) }, { id, turnId, status: "received" });
    this.append("session.status_running", {});
  }

  private steer(): void {
    this.steers.push(this.append("user.steer", { message: `steer ${this.ids}` }, { status: "received" }).id);
  }

  private queued(): void {
    this.queue.push(this.append("user.message", { content: text(`queued ${this.ids}`) }, { turnId: null, status: "queued" }).id);
  }

  private finalResult(): void {
    const [toolUseId, eventId] = [...this.longRunning][Math.floor(this.rnd() * this.longRunning.size)]!;
    this.longRunning.delete(toolUseId);
    const failed = this.rnd() < 0.3;
    this.mark(eventId, {
      status: "received",
      payload: {
        type: "user.custom_tool_result",
        tool_use_id: toolUseId,
        status: failed ? "failed" : "completed",
        content: text(`final ${toolUseId}`),
        ...(failed ? { is_error: true } : {}),
      },
    });
    this.startTurn([eventId]);
    this.append("session.status_running", {});
  }

  private unmatchedResult(): void {
    const id = this.id("evt");
    const turnId = this.startTurn([id]);
    this.append(
      "user.custom_tool_result",
      { tool_use_id: this.id("evt_ext"), status: "completed", content: text("late news") },
      { id, turnId, status: "received" },
    );
    this.append("session.status_running", {});
  }

  /** The worker's model call: steers are consumed, and the answer ends the turn or makes tool calls. */
  private modelCall(): void {
    const turn = this.turn!;
    for (const id of this.steers) this.mark(id, { status: "processed" });
    this.steers = [];
    if (this.rnd() < 0.35) return this.endTurn(false);
    if (this.rnd() < 0.6) this.append("agent.message", { content: text(`answer ${this.ids}`), delta: false });
    const modelCall = this.id("call");
    const denied: string[] = [];
    turn.calls = [];
    for (let n = 1 + Math.floor(this.rnd() * 3); n > 0; n--) {
      const id = this.id("evt");
      const r = this.rnd();
      if (r < 0.2) {
        denied.push(id);
        continue;
      }
      turn.calls.push({ id, state: r < 0.45 ? "executing" : "waiting" });
      if (r < 0.45) this.append("agent.tool_use", { id, tool: "terminal", input: { n }, status: "running" }, { id, status: "running" });
      else if (r < 0.65) this.append("agent.approval_request", { tool_use_id: id, tool: "todo", tool_type: "builtin", input: {} });
      else if (r < 0.85) this.append("agent.custom_tool_use", { id, tool: "lookup", input: { order: id } }, { id });
      else this.append("agent.clarify_request", { request_id: id, question: "which?", choices: this.rnd() < 0.5 ? ["a", "b"] : null }, { id });
    }
    // Policy denials come after the answer's other events, with the call's input and the model call.
    for (const id of denied) {
      this.append("agent.tool_result", {
        tool_use_id: id,
        tool: "nope",
        status: "failed",
        content: text("The tool call was denied: policy"),
        is_error: true,
        input: { x: 1 },
        model_call_id: modelCall,
      });
    }
    this.settle();
  }

  /** The worker runs what needs no human (approved calls get their tool-use event first); pauses when some call waits. */
  private settle(): void {
    const turn = this.turn!;
    for (const c of turn.calls) {
      if (c.state === "approved") this.append("agent.tool_use", { id: c.id, tool: "todo", input: {}, status: "running" }, { id: c.id, status: "running" });
      if (c.state === "approved" || c.state === "executing") {
        this.append("agent.tool_result", { tool_use_id: c.id, tool: "todo", status: "completed", content: text(`ran ${c.id}`), is_error: false });
      } else if (c.state === "denied") {
        this.append("agent.tool_result", {
          tool_use_id: c.id,
          tool: "todo",
          status: "failed",
          content: text("The tool call was denied: the user said no"),
          is_error: true,
        });
      } else continue;
      c.state = "done";
    }
    if (turn.calls.some((c) => c.state === "waiting")) {
      this.append("session.status_idle", { stop_reason: { type: "requires_action", event_ids: [] } });
      this.status = "waiting";
    }
  }

  /** The human answers one waiting call (approval, custom result, clarification); the turn resumes once none waits. */
  private answer(): void {
    const turn = this.turn!;
    const call = turn.calls.find((c) => c.state === "waiting")!;
    const request = this.log.find((e) => e.payload.tool_use_id === call.id || e.payload.request_id === call.id || e.id === call.id)!;
    const received = { turnId: turn.id, status: "received" as const };
    call.state = "done";
    if (request.type === "agent.approval_request") {
      const allow = this.rnd() < 0.6;
      turn.events.push(this.append("user.approval_response", { approval_id: request.id, result: allow ? "allow" : "deny" }, received).id);
      call.state = allow ? "approved" : "denied";
    } else if (request.type === "agent.custom_tool_use") {
      const running = this.rnd() < 0.4;
      const e = this.append(
        "user.custom_tool_result",
        { tool_use_id: call.id, content: text(running ? "job started" : "found"), ...(running ? { status: "running" } : {}) },
        received,
      );
      turn.events.push(e.id);
      if (running) this.longRunning.set(call.id, e.id);
    } else {
      turn.events.push(this.append("user.clarify_result", { request_id: call.id, answer: this.rnd() < 0.3 ? "" : "a" }, received).id);
    }
    if (turn.calls.some((c) => c.state === "waiting")) return;
    this.append("session.status_running", {});
    this.status = "running";
    this.settle();
  }

  /** The turn ends (its answer, or an interrupt); the oldest queued prompt starts the next. */
  private endTurn(interrupted: boolean): void {
    const turn = this.turn!;
    if (interrupted) turn.events.push(this.append("user.interrupt", {}, { status: "received" }).id);
    else this.append("agent.message", { content: text(`done ${this.ids}`), delta: false });
    this.append("session.status_idle", { stop_reason: { type: "end_turn" } });
    for (const id of turn.events) this.mark(id, { status: "processed" });
    this.turn = null;
    this.status = "idle";
    const next = this.queue.shift();
    if (next) {
      const turnId = this.startTurn([next]);
      this.append("session.status_running", {});
      this.mark(next, { status: "received", turnId });
    }
  }
}
