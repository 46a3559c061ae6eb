/** Told after a store changed what an MCP credential resolution reads (vaults, credentials, attachments), so caches of it are dropped. */
export interface VaultChanges {
  changed(orgId: string): Promise<void>;
}
