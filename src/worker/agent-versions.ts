/**
 * The agent versions sessions run on, cached in the worker: a version is immutable once written (an
 * update publishes a new one), so a turn needs no MongoDB read for it after the first.
 */
import { Lru } from "../lru.js";
import type { AgentStore, VersionDoc } from "../agents/store/agents.js";

/** Versions kept; one holds a whole configuration (prompt, skills, tools), so far fewer than sessions. */
const CAPACITY = 256;

export class AgentVersions {
  private readonly versions = new Lru<string, VersionDoc>(CAPACITY);

  constructor(private readonly agents: AgentStore) {}

  /** The version, or null when it does not exist (not remembered: nothing is cached but what was found). */
  async get(agentId: string, version: number): Promise<VersionDoc | null> {
    const key = `${agentId}:${version}`;
    const cached = this.versions.get(key);
    if (cached) return cached;
    const found = await this.agents.getVersionById(agentId, version);
    if (found) this.versions.set(key, found);
    return found;
  }
}
