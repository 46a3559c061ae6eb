/** Told after a store changed what an MCP credential resolution reads (vaults, credentials, attachments), so caches of it are dropped. */
export interface VaultChanges {
  changed(orgId: string): Promise<void>;
}

/** For a process that keeps no such cache and tells no one (a tool, a migration). */
export const NO_CHANGES: VaultChanges = { changed: async () => undefined };
