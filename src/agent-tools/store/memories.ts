/** Memories an agent keeps about a subject across sessions (the `memory` tool), per (organization, agent, subject). */
import type { Collection, Db } from "mongodb";
import { newId } from "../../ids.js";

export interface MemoryScope {
  orgId: string;
  agentId: string;
  subjectId: string;
}

export interface Memory {
  id: string;
  content: string;
}

interface MemoryDoc extends MemoryScope {
  _id: string;
  content: string;
  createdAt: Date;
}

export class MemoryStore {
  private readonly memories: Collection<MemoryDoc>;

  constructor(db: Db) {
    this.memories = db.collection<MemoryDoc>("memories");
  }
  /** Every memory of the agent, for all subjects (its deployment was deleted). */
  async deleteForAgent(orgId: string, agentId: string): Promise<void> {
    await this.memories.deleteMany({ orgId, agentId });
  }

  count(scope: MemoryScope): Promise<number> {
    return this.memories.countDocuments(scope);
  }

  async add(scope: MemoryScope, content: string): Promise<string> {
    const id = newId("evt").replace(/^evt_/, "mem_");
    await this.memories.insertOne({ _id: id, ...scope, content, createdAt: new Date() });
    return id;
  }

  async remove(scope: MemoryScope, id: string): Promise<boolean> {
    return (await this.memories.deleteOne({ _id: id, ...scope })).deletedCount === 1;
  }

  /** Oldest first. */
  async list(scope: MemoryScope): Promise<Memory[]> {
    const docs = await this.memories.find(scope).sort({ createdAt: 1 }).toArray();
    return docs.map((m) => ({ id: m._id, content: m.content }));
  }
}
