/** The secrets of an account (`sec_<id>`, for deployments): the service the deployments interface's routes call, against the real stores. */
import { expect } from "chai";
import { isAppError } from "../src/errors.js";
import { SecretService, SECRET_VALUE_BYTES } from "../src/vaults/secrets.js";
import { DeploymentSecretRefs } from "../src/deployments/store/secret-refs.js";
import { SecretStore } from "../src/vaults/store/secrets.js";
import { insertDeployment } from "./support/deployment-records.js";
import { secret } from "./support/secrets.js";
import { startServer, type TestServer } from "./support/server.js";

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (err: unknown) => err,
  );

describe("secrets", () => {
  let server: TestServer;
  let secrets: SecretService;
  let n = 0;
  const newOrg = () => server.core.stores.organizations.ensureOrganization(`secrets-${process.pid}-${Date.now()}-${++n}`);

  before(async () => {
    server = await startServer();
    secrets = server.core.inner.secrets;
  });
  after(async () => server?.close());

  it("creates, reads and rotates a secret; no answer holds the value, and MongoDB holds it sealed", async () => {
    const orgId = await newOrg();
    const value = secret();
    const created = await secrets.create(orgId, { name: "Stripe key", value });
    expect(created._id).to.match(/^sec_[0-9a-z]+$/);
    expect(created).to.have.keys("_id", "orgId", "name", "createdAt", "updatedAt");
    expect(await secrets.get(orgId, created._id)).to.deep.equal(created);
    const raw = await server.core.connections.mongo.db.collection("secrets").findOne({ _id: created._id as never });
    expect(JSON.stringify(raw)).to.not.include(value);
    expect(raw!.sealed).to.have.keys("k", "iv", "tag", "ct");
    expect(await secrets.resolve(orgId, { STRIPE: created._id })).to.deep.equal({ STRIPE: value });
    const rotated = secret();
    const updated = await secrets.replaceValue(orgId, created._id, { value: rotated, name: "Stripe key (rotated)" });
    expect(updated).to.have.keys("_id", "orgId", "name", "createdAt", "updatedAt");
    expect(updated.name).to.equal("Stripe key (rotated)");
    expect(updated.updatedAt.getTime()).to.be.at.least(created.updatedAt.getTime());
    expect(await secrets.resolve(orgId, { STRIPE: created._id, AGAIN: created._id })).to.deep.equal({ STRIPE: rotated, AGAIN: rotated });
  });

  it("another organization's secret is not found, is missing, and does not resolve", async () => {
    const [mine, theirs] = [await newOrg(), await newOrg()];
    const s = await secrets.create(theirs, { name: "theirs", value: secret() });
    expect(isAppError(await failure(secrets.get(mine, s._id)), "not_found")).to.equal(true);
    expect(isAppError(await failure(secrets.replaceValue(mine, s._id, { value: "x" })), "not_found")).to.equal(true);
    expect(isAppError(await failure(secrets.delete(mine, s._id)), "not_found")).to.equal(true);
    expect(isAppError(await failure(secrets.get(mine, "../etc")), "not_found")).to.equal(true);
    const own = await secrets.create(mine, { name: "mine", value: secret() });
    expect(await secrets.missing(mine, [own._id, s._id, "sec_0000nothere", "not-a-ref"])).to.deep.equal([s._id, "sec_0000nothere", "not-a-ref"]);
    const refused = await failure(secrets.resolve(mine, { A: own._id, B: s._id, C: "sec_0000nothere" }));
    expect(isAppError(refused, "invalid_secret_ref") && refused.message).to.equal("secrets.B, secrets.C: name no secrets of this account");
  });

  it("lists newest first in pages whose cursor stays correct while secrets are created", async () => {
    const orgId = await newOrg();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await secrets.create(orgId, { name: `s${i}`, value: secret() }))._id);
    const first = await secrets.list(orgId, { limit: 2 });
    expect(first.items.map((s) => s._id)).to.deep.equal([ids[4], ids[3]]);
    expect(first.nextCursor).to.be.a("string");
    await secrets.create(orgId, { name: "later", value: secret() });
    const second = await secrets.list(orgId, { limit: 2, cursor: first.nextCursor! });
    expect(second.items.map((s) => s._id)).to.deep.equal([ids[2], ids[1]]);
    const last = await secrets.list(orgId, { limit: 2, cursor: second.nextCursor! });
    expect(last).to.deep.equal({ items: [await secrets.get(orgId, ids[0]!)], nextCursor: null });
    const bad = await failure(secrets.list(orgId, { limit: 2, cursor: "bm90LWEtY3Vyc29y" }));
    expect(isAppError(bad, "validation_error") && bad.message).to.equal("cursor: must be a next_cursor this list returned");
  });

  it("refuses a value over 64 KiB in UTF-8, without echoing it", async () => {
    const orgId = await newOrg();
    const big = secret("é".repeat(SECRET_VALUE_BYTES / 2 + 1));
    const refused = await failure(secrets.create(orgId, { name: "big", value: big }));
    expect(isAppError(refused, "validation_error") && refused.message).to.equal("value: must be at most 65536 bytes in UTF-8");
    const fits = await secrets.create(orgId, { name: "fits", value: "é".repeat(SECRET_VALUE_BYTES / 2) });
    expect(isAppError(await failure(secrets.replaceValue(orgId, fits._id, { value: big })), "validation_error")).to.equal(true);
  });

  it("is not deleted while a deployment names it (409 naming the deployment); deleted once none does", async () => {
    const orgId = await newOrg();
    const s = await secrets.create(orgId, { name: "used", value: secret() });
    const d = await insertDeployment(server, orgId, { secrets: { TOKEN: s._id } });
    const refused = await failure(secrets.delete(orgId, s._id));
    expect(isAppError(refused, "conflict") && refused.message).to.equal(
      `the secret is named by the secrets of deployment ${d.doc._id}; remove it from them first (PATCH with the variable set to null)`,
    );
    await d.store.changeSettings(d.doc, { ...d.doc.settings, secrets: {} }, false);
    await secrets.delete(orgId, s._id);
    expect(isAppError(await failure(secrets.get(orgId, s._id)), "not_found")).to.equal(true);
    expect(await server.core.connections.mongo.db.collection("secrets").findOne({ _id: s._id as never })).to.equal(null);
  });

  it("without a vault key, a secret is neither stored nor opened (503 naming the variable)", async () => {
    const db = server.core.connections.mongo.db;
    const keyless = new SecretService(new SecretStore(db, undefined), new DeploymentSecretRefs(db));
    const orgId = await newOrg();
    const refused = await failure(keyless.create(orgId, { name: "x", value: secret() }));
    expect(isAppError(refused, "unavailable") && refused.message).to.equal("secrets cannot be stored or used: VAULT_ENCRYPTION_KEY is not configured");
    const stored = await secrets.create(orgId, { name: "sealed", value: secret() });
    expect(isAppError(await failure(keyless.resolve(orgId, { X: stored._id })), "unavailable")).to.equal(true);
    expect((await keyless.list(orgId, { limit: 10 })).items.map((s) => s._id)).to.deep.equal([stored._id]);
  });

  it("a sealed value copied onto another record does not open", async () => {
    const orgId = await newOrg();
    const [a, b] = [await secrets.create(orgId, { name: "a", value: secret() }), await secrets.create(orgId, { name: "b", value: secret() })];
    const collection = server.core.connections.mongo.db.collection("secrets");
    const sealedA = (await collection.findOne({ _id: a._id as never }))!.sealed;
    await collection.updateOne({ _id: b._id as never }, { $set: { sealed: sealedA } });
    expect(isAppError(await failure(secrets.resolve(orgId, { B: b._id })), "internal")).to.equal(true);
  });
});
