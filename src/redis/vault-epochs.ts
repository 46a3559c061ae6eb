/**
 * A counter per organization, bumped after every change to its vaults, credentials or attachments. A
 * worker may keep an MCP server's resolved credential while the counter it read before resolving is
 * still current: each request reads the counter (one Redis round trip instead of the MongoDB reads of
 * a resolution), so a change is seen by the very next request, as resolving at request time requires.
 */
import type { RedisClient } from "./client.js";
import type { VaultChanges } from "../store/vault-changes.js";
import type { Keys } from "./keys.js";

export class VaultEpochs implements VaultChanges {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async current(orgId: string): Promise<string> {
    return (await this.redis.get(this.keys.vaultEpoch(orgId))) ?? "0";
  }

  async changed(orgId: string): Promise<void> {
    await this.redis.incr(this.keys.vaultEpoch(orgId));
  }
}
