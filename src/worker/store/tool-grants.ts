/**
 * Approvals given with scope `always`: remembered per (organization, agent, subject) and tool name,
 * for every later session and version of that agent with that subject. (Scope `session` lives in the
 * session's runtime state.)
 */
import type { Collection, Db } from "mongodb";
import { isDuplicateKey } from "../../mongo/mongo.js";

interface GrantDoc {
  _id: string;
  orgId: string;
  agentId: string;
  subjectId: string;
  tool: string;
  createdAt: Date;
}

export interface GrantScope {
  orgId: string;
  agentId: string;
  subjectId: string;
}

export class ToolGrantStore {
  private readonly grants: Collection<GrantDoc>;

  constructor(db: Db) {
    this.grants = db.collection<GrantDoc>("tool_grants");
  }
  /** Every grant under the agent (its deployment was deleted). */
  async deleteForAgent(orgId: string, agentId: string): Promise<void> {
    await this.grants.deleteMany({ orgId, agentId });
  }

  async always(scope: GrantScope): Promise<Set<string>> {
    const docs = await this.grants.find(scope, { projection: { tool: 1 } }).toArray();
    return new Set(docs.map((d) => d.tool));
  }

  /** Idempotent: granting twice keeps one grant. */
  async grant(scope: GrantScope, tool: string): Promise<void> {
    try {
      await this.grants.insertOne({ _id: JSON.stringify([scope.orgId, scope.agentId, scope.subjectId, tool]), ...scope, tool, createdAt: new Date() });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }
}
