/** Session records in MongoDB. */
import type { Collection, Db } from "mongodb";
import type { AgentDependents } from "../services/agents.js";

export interface SessionDoc {
  _id: string;
  orgId: string;
  agentId: string;
  subjectId: string;
}

export class SessionStore implements AgentDependents {
  private readonly sessions: Collection<SessionDoc>;

  constructor(db: Db) {
    this.sessions = db.collection<SessionDoc>("sessions");
  }

  async hasSessions(orgId: string, agentId: string): Promise<boolean> {
    return (await this.sessions.findOne({ orgId, agentId }, { projection: { _id: 1 } })) !== null;
  }
}
