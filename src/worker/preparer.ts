/**
 * The worker side of session preparation: on each hint (`src/sessions/redis/preparation-hints.ts`) the worker makes
 * ready what the first turn of a session of the agent would otherwise make first:
 *   - the agent version, in the worker's cache (`agent-versions.ts`);
 *   - each MCP server a toolset of the version names: its credential resolved, its connection opened
 *     and its tools listed, all kept by the pool (connections 60 s unused, lists 30 s);
 *   - for a session just created: its facts (`src/sessions/session-facts.ts`, from the hint, with no MongoDB
 *     read) and its workspace when its tools use one.
 * The agent part runs once per (organization, agent, version) per window in a worker, however many
 * hints name it. At most CONCURRENCY preparations run at once and QUEUED wait; further hints are
 * dropped (a hint is not work owed). Failures are logged, not retried: the first turn does what the
 * preparation could not, and reports it as it always has.
 */
import { usesWorkspace, serversToPrepare } from "../sessions/domain/preparation.js";
import { governingTools } from "./domain/tool-permissions.js";
import { AppError } from "../errors.js";
import type { Logger } from "../log.js";
import { Lru } from "../lru.js";
import type { Preparation } from "../sessions/redis/preparation-hints.js";
import type { EventLog } from "../sessions/redis/event-log.js";
import type { McpAccess } from "../vaults/mcp-access.js";
import type { AgentVersions } from "./agent-versions.js";
import type { Placements } from "./placement.js";
import type { SessionFactsCache } from "../sessions/session-facts.js";

export interface PreparerDeps {
  versions: AgentVersions;
  sessionFacts: SessionFactsCache;
  log: EventLog;
  mcp: McpAccess;
  /** Where a session's tools run: its own workspace, or its deployment's. */
  placements: Placements;
  logger: Logger;
  /** Aborts preparations under way at shutdown. */
  shutdown: AbortSignal;
}

/** An agent prepared this recently is not prepared again by a hint. */
export const AGENT_WINDOW_MS = 10_000;
const CONCURRENCY = 4;
const QUEUED = 256;
/** Agents whose last preparation time is remembered. */
const REMEMBERED = 1000;

export class Preparer {
  private readonly prepared = new Lru<string, number>(REMEMBERED);
  private readonly waiting: { hint: Preparation; agentDue: boolean }[] = [];
  private running = 0;

  constructor(private readonly deps: PreparerDeps) {}

  accept(hint: Preparation): void {
    const { logger, shutdown } = this.deps;
    if (shutdown.aborted) return;
    const key = `${hint.orgId}\u0000${hint.agentId}\u0000${hint.agentVersion}`;
    const last = this.prepared.get(key);
    const agentDue = last === undefined || Date.now() - last >= AGENT_WINDOW_MS;
    if (!agentDue && !hint.session) return;
    if (this.waiting.length >= QUEUED) {
      logger.debug("preparation hint dropped: too many waiting", { agentId: hint.agentId });
      return;
    }
    if (agentDue) this.prepared.set(key, Date.now());
    if (hint.session) {
      const { session: s } = hint;
      const facts = { _id: s.id, orgId: hint.orgId, agentId: hint.agentId, agentVersion: hint.agentVersion, subjectId: hint.subjectId, role: s.role };
      this.deps.sessionFacts.remember(s.deploymentId ? { ...facts, deploymentId: s.deploymentId } : facts, s.titled);
    }
    this.waiting.push({ hint, agentDue });
    this.pump();
  }

  private pump(): void {
    while (this.running < CONCURRENCY && this.waiting.length > 0 && !this.deps.shutdown.aborted) {
      const next = this.waiting.shift()!;
      this.running++;
      void this.prepare(next.hint, next.agentDue)
        .catch((err: unknown) => {
          // At shutdown the stores close under a preparation: nothing is wrong.
          if (!this.deps.shutdown.aborted) this.deps.logger.warn("preparation failed", { agentId: next.hint.agentId, err });
        })
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }

  private async prepare(hint: Preparation, agentDue: boolean): Promise<void> {
    const { versions, mcp, logger, shutdown } = this.deps;
    const version = await versions.get(hint.agentId, hint.agentVersion);
    if (!version || version.orgId !== hint.orgId) return;
    const work: Promise<unknown>[] = [];
    const { session } = hint;
    if (session && usesWorkspace(governingTools(version, session.role))) {
      // A hint waits in the queue: a session deleted meanwhile (its state gone) gets no workspace made again.
      if (await this.deps.log.identity(session.id)) work.push(this.deps.placements.prepare(session));
    }
    if (agentDue) {
      const owner = { orgId: hint.orgId, agentId: hint.agentId };
      for (const server of serversToPrepare(version)) {
        work.push(
          mcp.listTools(owner, server, shutdown).catch((err: unknown) => {
            if (shutdown.aborted) return;
            // An AppError's message names the server and why, never a secret; anything else is unexpected.
            if (err instanceof AppError)
              logger.info("preparation could not list an MCP server", { agentId: hint.agentId, server: server.name, reason: err.message });
            else throw err;
          }),
        );
      }
    }
    for (const result of await Promise.allSettled(work)) {
      if (result.status === "rejected" && !shutdown.aborted)
        logger.warn("preparation failed", { agentId: hint.agentId, sessionId: session?.id, err: result.reason });
    }
  }
}
