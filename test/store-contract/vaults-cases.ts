/** Store contract: organizations and keys, vaults, credentials, secrets and MCP installation records, read back exactly. */
import { createHash } from "node:crypto";
import { expect } from "chai";
import { McpInstallationStore, type InstallationAnswer } from "../../src/vaults/store/mcp-installations.js";
import { hashKey, OrganizationStore } from "../../src/accounts/store/organizations.js";
import { SecretStore } from "../../src/vaults/store/secrets.js";
import { CredentialStore } from "../../src/vaults/store/vault-credentials.js";
import { VaultStore } from "../../src/vaults/store/vaults.js";
import { any, deps, expectDoc, uid, type ContractCase } from "./target.js";

const AT = new Date("2026-01-02T03:04:05.000Z");
const json = (v: unknown) => ({ json: JSON.stringify(v) });

export const vaultCases: ContractCase[] = [
  {
    title: "OrganizationStore ensureOrganization, createKey and revokeKey",
    sites: ["OrganizationStore.ensureOrganization", "OrganizationStore.createKey", "OrganizationStore.revokeKey"],
    async run(t) {
      const s = new OrganizationStore(t.db);
      const name = uid("org-name");
      const orgId = await s.ensureOrganization(name);
      expect(await s.ensureOrganization(name)).to.equal(orgId);
      await expectDoc(t, "organizations", orgId, { _id: orgId, name, createdAt: any.date });
      const { id, key } = await s.createKey(orgId, 60, ["deployments:read", "deployments:read"], "ci");
      const made = {
        _id: id,
        orgId,
        hash: hashKey(key),
        requestsPerMinute: 60,
        scopes: ["deployments:read"],
        name: "ci",
        createdAt: any.date,
        revokedAt: null,
      };
      await expectDoc(t, "api_keys", id, made);
      expect(await s.revokeKey(id)).to.equal(true);
      expect(await s.revokeKey(id), "revoked already").to.equal(false);
      await expectDoc(t, "api_keys", id, { ...made, revokedAt: any.date });
    },
  },
  {
    title: "VaultStore create, archive and delete: metadata as JSON text",
    sites: ["VaultStore.create", "VaultStore.archive", "VaultStore.delete"],
    async run(t) {
      const s = new VaultStore(t.db, deps.changes);
      const v = await s.create("org_contract", "Vault", { a: "1", "a.b": true });
      const made = {
        _id: v._id,
        orgId: "org_contract",
        displayName: "Vault",
        metadata: json({ a: "1", "a.b": true }),
        archivedAt: null,
        createdAt: any.date,
        updatedAt: any.date,
      };
      await expectDoc(t, "vaults", v._id, made);
      await s.archive("org_contract", v._id);
      await expectDoc(t, "vaults", v._id, { ...made, archivedAt: any.date });
      expect(await s.delete(v._id)).to.equal(true);
      await expectDoc(t, "vaults", v._id, null);
    },
  },
  {
    title:
      "CredentialStore: refused, a metadata key renamed to the same value and the expiry, secrets replaced over their version (a stale writer refused), archived, deleted",
    sites: ["CredentialStore.create", "CredentialStore.markRefused", "CredentialStore.update", "CredentialStore.archive", "CredentialStore.delete"],
    async run(t) {
      const s = new CredentialStore(t.db, deps.box, deps.changes);
      const vaultId = uid("vlt");
      const auth = { type: "mcp_oauth" as const, mcpServerUrl: "https://mcp.example.com/", expiresAt: AT, refresh: null };
      const fields = { orgId: "org_contract", vaultId, displayName: "Cred", metadata: { a: "1" }, auth, serverKey: "https://mcp.example.com" };
      const secrets = { type: "mcp_oauth" as const, accessToken: "at-1", refreshToken: null, clientSecret: null };
      const doc = await s.create(fields, secrets);
      const made = {
        _id: doc._id,
        ...fields,
        metadata: json({ a: "1" }),
        archivedAt: null,
        createdAt: any.date,
        updatedAt: any.date,
        secretsVersion: 1,
        sealed: any.sealed,
      };
      await expectDoc(t, "vault_credentials", doc._id, made);
      await s.markRefused(doc);
      await expectDoc(t, "vault_credentials", doc._id, { ...made, refusedAt: any.date });
      const expiresAt = new Date(AT.getTime() + 3_600_000);
      await s.update(doc, { metadata: { b: "1" }, displayName: "Renamed", expiresAt });
      const changed = { ...made, refusedAt: any.date, metadata: json({ b: "1" }), displayName: "Renamed", auth: { ...auth, expiresAt } };
      await expectDoc(t, "vault_credentials", doc._id, changed);
      expect(await s.update(doc, {}, { ...secrets, accessToken: "at-2" })).to.not.equal("stale");
      await expectDoc(t, "vault_credentials", doc._id, { ...changed, refusedAt: null, secretsVersion: 2 });
      expect(await s.update(doc, {}, { ...secrets, accessToken: "at-3" }), "over secrets replaced since").to.equal("stale");
      expect((await s.open(doc._id))!.secrets).to.deep.equal({ ...secrets, accessToken: "at-2" });
      await s.archive(doc);
      await expectDoc(t, "vault_credentials", doc._id, { ...changed, refusedAt: null, secretsVersion: 2, archivedAt: any.date });
      expect(await s.delete(doc)).to.equal(true);
      await expectDoc(t, "vault_credentials", doc._id, null);
    },
  },
  {
    title: "SecretStore create, replace (name, value) and delete",
    sites: ["SecretStore.create", "SecretStore.replace", "SecretStore.delete"],
    async run(t) {
      const s = new SecretStore(t.db, deps.box);
      const doc = await s.create("org_contract", "Token", "value-1");
      const made = { _id: doc._id, orgId: "org_contract", name: "Token", createdAt: any.date, updatedAt: any.date, sealed: any.sealed };
      await expectDoc(t, "secrets", doc._id, made);
      await s.replace(doc, { name: "Renamed" });
      await expectDoc(t, "secrets", doc._id, { ...made, name: "Renamed" });
      await s.replace(doc, { value: "value-2" });
      expect((await s.open("org_contract", [doc._id])).get(doc._id)).to.equal("value-2");
      await expectDoc(t, "secrets", doc._id, { ...made, name: "Renamed" });
      expect(await s.delete(doc)).to.equal(true);
      await expectDoc(t, "secrets", doc._id, null);
    },
  },
  {
    title: "McpInstallationStore claim, complete and expire: the record claimed once, its answer set, a retry finding it",
    sites: ["McpInstallationStore.claim", "McpInstallationStore.complete", "McpInstallationStore.expire"],
    async run(t) {
      const s = new McpInstallationStore(t.db, Buffer.alloc(32, 7));
      const agentId = uid("agt");
      const plan = { id: "plan_1", newVaultId: "vlt_new", credentialId: "vcr_new" };
      const claim = await s.claim("org_contract", agentId, "key-1", { a: 1 }, () => plan);
      const recordId = `org_contract/${agentId}/${createHash("sha256").update("key-1").digest("hex")}`;
      expect(claim).to.deep.equal({ kind: "claimed", recordId, plan, answer: null });
      const made = { _id: recordId, orgId: "org_contract", agentId, salt: any.string, requestHash: any.string, plan, answer: null, createdAt: any.date };
      await expectDoc(t, "mcp_installations", recordId, made);
      const answer: InstallationAnswer = {
        agent: { status: "active", rateLimits: { conversationsPerMinute: 5, messagesPerMinute: 100 }, createdAt: AT, updatedAt: AT, version: 2 },
        version: 2,
        mcpServer: { type: "url", name: "docs", url: "https://mcp.example.com/" },
        authentication: { type: "static_bearer", vaultId: "vlt_new", credentialId: "vcr_new" },
      };
      await s.complete(recordId, answer);
      await expectDoc(t, "mcp_installations", recordId, { ...made, answer });
      expect(await s.claim("org_contract", agentId, "key-1", { a: 1 }, () => ({ ...plan, id: "plan_2" }))).to.deep.equal({
        kind: "claimed",
        recordId,
        plan,
        answer,
      });
      expect(await s.claim("org_contract", agentId, "key-1", { a: 2 }, () => plan)).to.deep.equal({ kind: "mismatch" });
      expect(await s.expire(new Date(Date.now() + 60_000))).to.be.greaterThan(0);
      await expectDoc(t, "mcp_installations", recordId, null);
    },
  },
];
