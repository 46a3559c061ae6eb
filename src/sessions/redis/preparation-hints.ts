/**
 * Preparation hints, from the API to every worker: "a session of this agent is coming (or was just
 * created): get ready for its first turn". Published on a pub/sub channel, so each listening worker
 * hears each hint once: what is prepared lives in each worker's memory, and any worker may take the
 * first turn. A worker not listening at that moment misses the hint, which costs only the head start.
 * A prewarm of one (organization, agent, subject) publishes at most once per window, held by a key
 * set with NX, so a storm of repeated prewarms reaches no worker.
 */
import type { RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";

export interface PreparedSession {
  id: string;
  role: string | null;
  titled: boolean;
  /** The deployment whose thread the session is (its tools then use the deployment's workspace). */
  deploymentId?: string;
}

export interface Preparation {
  orgId: string;
  agentId: string;
  /** The version a session created now records (the latest). */
  agentVersion: number;
  subjectId: string;
  /** The session just created; null for a prewarm. */
  session: PreparedSession | null;
}

const isString = (v: unknown): v is string => typeof v === "string";

/** A hint as published, or null for anything else (never written by this service). */
function parse(message: string): Preparation | null {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const p = value as Partial<Record<keyof Preparation, unknown>>;
  if (!isString(p.orgId) || !isString(p.agentId) || !isString(p.subjectId) || !Number.isInteger(p.agentVersion)) return null;
  const s = p.session as Partial<Record<keyof PreparedSession, unknown>> | null | undefined;
  if (
    s !== null &&
    (typeof s !== "object" ||
      !isString(s.id) ||
      !(s.role === null || isString(s.role)) ||
      typeof s.titled !== "boolean" ||
      !(s.deploymentId === undefined || isString(s.deploymentId)))
  )
    return null;
  return value as Preparation;
}

export class Preparations {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** True when no prewarm of the (organization, agent, subject) was hinted in the last `windowMs`; it now is. */
  async firstHint(orgId: string, agentId: string, subjectId: string, windowMs: number): Promise<boolean> {
    return (await this.redis.set(this.keys.warmHint(orgId, agentId, subjectId), "1", "PX", windowMs, "NX")) === "OK";
  }

  async publish(preparation: Preparation): Promise<void> {
    await this.redis.publish(this.keys.preparations(), JSON.stringify(preparation));
  }

  /** Hands every hint published from now on to `deliver`; `connection` is one of its own (it enters subscriber mode). */
  async listen(connection: RedisClient, deliver: (preparation: Preparation) => void): Promise<void> {
    const channel = this.keys.preparations();
    connection.on("message", (from: string, message: string) => {
      const preparation = from === channel ? parse(message) : null;
      if (preparation) deliver(preparation);
    });
    await connection.subscribe(channel);
  }
}
