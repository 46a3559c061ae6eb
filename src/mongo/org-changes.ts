/**
 * Told after a store changed records that processes cache per organization (what an MCP credential
 * resolution reads: vaults, credentials, attachments; which webhook endpoints take notices), so those
 * caches are dropped (`org-epochs.ts`).
 */
export interface OrgChanges {
  changed(orgId: string): Promise<void>;
}
