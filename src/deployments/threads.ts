/**
 * A deployment's threads (sessions of its agent for its customer), their events, and the files a
 * caller uploads into its workspace. Everything here is reached through a deployment of the caller's
 * organization; a thread of another deployment is `404`, as is one of another organization.
 */
import { AppError, isAppError, notFound, validationError } from "../errors.js";
import type { Once } from "../idempotency/index.js";
import type { Envelope } from "../sessions/domain/events.js";
import type { DeploymentDoc } from "./store/deployments.js";
import { deploymentWorkspaceOf, writeAsUser, writeWorkspaceFile } from "./workspace-files.js";
import { prepareDeploymentWorkspace } from "./workspace.js";
import { sandboxUser } from "../agent-tools/sandbox/sandbox.js";
import type { SessionStore } from "../sessions/store/sessions.js";
import { decodeListCursor, encodeListCursor } from "./cursor.js";
import type { CreditCheck, DeploymentService } from "./deployments.js";
import type { EventService, EventsPostBody, Sent } from "../sessions/events.js";
import type { SessionCreateBody, SessionService, SessionView } from "../sessions/sessions.js";

export type ThreadCreate = Pick<SessionCreateBody, "title" | "metadata">;

/** Largest file one upload may carry. */
export const MAX_UPLOAD_BYTES = 1024 * 1024;

export class DeploymentThreads {
  constructor(
    private readonly deployments: DeploymentService,
    private readonly sessions: SessionService,
    private readonly sessionStore: SessionStore,
    private readonly events: EventService,
    private readonly credits: CreditCheck,
    private readonly workspaceRoot: string,
  ) {}

  /** The deployment, which must be ready to take threads and messages. */
  private async ready(orgId: string, deploymentId: string): Promise<DeploymentDoc> {
    const d = await this.deployments.get(orgId, deploymentId);
    if (d.status !== "ready") throw new AppError("invalid_state", `the deployment is ${d.status}; it takes threads and messages once ready`);
    return d;
  }

  /** The thread when it is the deployment's (its agent's session). */
  async thread(orgId: string, deploymentId: string, threadId: string): Promise<{ deployment: DeploymentDoc; view: SessionView }> {
    const deployment = await this.deployments.get(orgId, deploymentId);
    const view = await this.sessions
      .get(orgId, threadId)
      .catch((err: unknown) => Promise.reject(err instanceof AppError && err.code === "not_found" ? notFound("thread") : err));
    if (view.doc.agentId !== deployment.agentId) throw notFound("thread");
    return { deployment, view };
  }

  /** The deployment's threads, newest first, a page at a time. */
  async list(orgId: string, deploymentId: string, opts: { limit: number; cursor?: string }): Promise<{ items: SessionView[]; nextCursor: string | null }> {
    const d = await this.deployments.get(orgId, deploymentId);
    const before = opts.cursor === undefined ? undefined : decodeListCursor("threads", opts.cursor);
    const page = await this.sessionStore.pageOfAgent(orgId, d.agentId, { limit: opts.limit, ...(before ? { before } : {}) });
    const views = await this.sessions.views(
      orgId,
      page.items.map((s) => s._id),
    );
    const last = page.items[page.items.length - 1];
    return { items: views, nextCursor: page.more && last ? encodeListCursor("threads", last._id) : null };
  }

  async create(orgId: string, deploymentId: string, body: ThreadCreate): Promise<SessionView> {
    const d = await this.ready(orgId, deploymentId);
    try {
      return (await this.sessions.create(orgId, { agentId: d.agentId, subjectId: d.customerId, ...body })).view;
    } catch (err) {
      // Deleted meanwhile (its teardown archives the agent first, then removes it): 404, as any deleted deployment.
      if (isAppError(err, "invalid_state", "not_found")) await this.deployments.get(orgId, deploymentId);
      throw err;
    }
  }

  /** Sends events to a thread; a message or a steer needs credits (a turn is refused before it starts without them). */
  async send(orgId: string, deploymentId: string, threadId: string, body: EventsPostBody, ceiling: Promise<void>, once?: Once): Promise<Sent> {
    await this.thread(orgId, deploymentId, threadId);
    // What starts new work needs credits; an interrupt, an approval or an answer never does, so a thread is never stuck.
    if (body.events.some((e) => e.type === "user.message" || e.type === "user.steer")) await this.credits.requirePositive(orgId);
    return this.events.post(orgId, threadId, body, ceiling, once);
  }

  async history(orgId: string, deploymentId: string, threadId: string, after: number, limit: number): Promise<{ data: Envelope[]; hasMore: boolean }> {
    await this.thread(orgId, deploymentId, threadId);
    return this.events.history(orgId, threadId, after, limit);
  }

  /** Puts a file into the deployment's workspace (a skill file, seed data); its tools see it at the same path. */
  async upload(orgId: string, deploymentId: string, path: string, bytes: Buffer): Promise<void> {
    const d = await this.deployments.get(orgId, deploymentId);
    const workspace = deploymentWorkspaceOf(this.workspaceRoot, d._id);
    if (!workspace) throw notFound("deployment");
    await prepareDeploymentWorkspace(this.workspaceRoot, d._id);
    // Written as the deployment's user (when the service runs as root): owned by it, and never through a link to where only root may write.
    const user = sandboxUser(d._id);
    const written = user ? await writeAsUser(workspace, path, bytes, user) : await writeWorkspaceFile(workspace, path, bytes);
    if (!written) {
      throw validationError("path: leads through a symbolic link or a file in the workspace");
    }
  }
}
