/**
 * Ends what this worker keeps of archived and deleted sessions: it reads the ending notices (the whole
 * stream when the worker starts, then the new ones every READ_INTERVAL_MS), kills the session's
 * background processes it started and, when the session's workspace is on this machine, every process
 * of the session's user; a deleted session's workspace is removed. Idempotent, so several workers
 * sharing a workspace root may each do it.
 */
import { access } from "node:fs/promises";
import type { Logger } from "../log.js";
import type { SessionEnding, SessionEndings } from "../sessions/redis/session-endings.js";
import { removeWorkspace } from "../agent-tools/sandbox/sandbox.js";
import type { TerminalTools } from "../agent-tools/terminal.js";
import type { Placements } from "./placement.js";

const READ_INTERVAL_MS = 1_000;
const BATCH = 500;

export interface SessionReaperDeps {
  endings: SessionEndings;
  terminal: TerminalTools;
  placements: Placements;
  logger: Logger;
}

export class SessionReaper {
  private last = "0";
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private pass: Promise<void> = Promise.resolve();

  constructor(private readonly deps: SessionReaperDeps) {}

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pass;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.pass = this.readAll()
        .catch((err: unknown) => this.deps.logger.warn("reading session endings failed", { err }))
        .finally(() => this.schedule(READ_INTERVAL_MS));
    }, ms);
  }

  private async readAll(): Promise<void> {
    for (;;) {
      const { last, endings } = await this.deps.endings.after(this.last, BATCH);
      for (const ending of endings) {
        await this.reap(ending).catch((err: unknown) =>
          this.deps.logger.warn("ending an archived or deleted session's processes or workspace failed", { sessionId: ending.sessionId, err }),
        );
      }
      this.last = last;
      if (endings.length < BATCH || this.stopped) return;
    }
  }

  private async reap({ sessionId, end }: SessionEnding): Promise<void> {
    // A deployment's thread has no workspace of its own (the deployment's outlives it), nor a user of its
    // own: only its background processes in the table end.
    const workspace = this.deps.placements.ownWorkspace(sessionId);
    // No workspace here: no tool of the session ever ran on this machine, so only the table is looked at.
    const here =
      workspace !== null &&
      (await access(workspace).then(
        () => true,
        () => false,
      ));
    await this.deps.terminal.endSession(sessionId, here);
    this.deps.placements.endNetwork(sessionId);
    if (here && end === "deleted") await removeWorkspace(workspace);
  }
}
