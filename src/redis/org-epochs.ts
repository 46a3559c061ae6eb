/**
 * A counter per organization and kind of record, bumped after every change to those records. A process
 * may keep what it loaded while the counter it read before loading is still current: each use reads the
 * counter (one Redis round trip instead of the MongoDB reads), so a change is seen by the very next use
 * on every process. Kept for vaults, credentials and attachments (an MCP server's resolved credential,
 * `mcp-access.ts`) and for webhook endpoints (the notices' targets, `webhook-notices.ts`).
 */
import type { RedisClient } from "./client.js";
import type { OrgChanges } from "../mongo/org-changes.js";

export class OrgEpochs implements OrgChanges {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyOf: (orgId: string) => string,
  ) {}

  async current(orgId: string): Promise<string> {
    return (await this.redis.get(this.keyOf(orgId))) ?? "0";
  }

  async changed(orgId: string): Promise<void> {
    await this.redis.incr(this.keyOf(orgId));
  }
}
