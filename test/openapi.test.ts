import { expect } from "chai";
import { readdirSync } from "node:fs";
import { schemasDir } from "../src/paths.js";
import { client, startServer, type TestServer } from "./support/server.js";

/** The OpenAPI document is assembled from the declared routes and schemas/: nothing may be missing or dangle. */
describe("GET /v1/openapi.json", () => {
  let server: TestServer;
  let doc: any;
  let deploymentsDoc: any;
  before(async () => {
    server = await startServer({ ROLE: "api" });
    doc = (await client(server.url).get("/v1/openapi.json")).body;
    deploymentsDoc = (await client(server.deploymentsUrl).get("/v1/openapi.json")).body;
  });
  after(async () => server.close());

  it("describes every endpoint of the interface with its method", () => {
    const expected: [string, string][] = [
      ["/v1/agents", "post"],
      ["/v1/agents", "get"],
      ["/v1/agents/{agentId}", "get"],
      ["/v1/agents/{agentId}", "post"],
      ["/v1/agents/{agentId}", "patch"],
      ["/v1/agents/{agentId}", "delete"],
      ["/v1/agents/{agentId}/archive", "post"],
      ["/v1/agents/{agentId}/rate-limits", "patch"],
      ["/v1/agents/{agentId}/versions", "get"],
      ["/v1/agents/{agentId}/versions/{version}", "get"],
      ["/v1/agents/{agentId}/mcp/installations", "post"],
      ["/v1/sessions", "post"],
      ["/v1/sessions", "get"],
      ["/v1/sessions/{sessionId}", "get"],
      ["/v1/sessions/{sessionId}", "post"],
      ["/v1/sessions/{sessionId}/archive", "post"],
      ["/v1/sessions/{sessionId}", "delete"],
      ["/v1/sandboxes/warm", "post"],
      ["/v1/sessions/{sessionId}/events", "post"],
      ["/v1/sessions/{sessionId}/events", "get"],
      ["/v1/sessions/{sessionId}/events/stream", "get"],
    ];
    for (const [path, method] of expected) expect(doc.paths[path]?.[method], `${method} ${path}`).to.be.an("object");
    expect(doc.info.version).to.equal("1.0.0");
  });

  it("holds every schema of every schema file in the document of its interface, and every $ref resolves to a component", async () => {
    const files = readdirSync(schemasDir)
      .filter((f) => f.endsWith(".ts") && f !== "index.ts")
      .map((f) => f.replace(/\.ts$/, ""));
    for (const name of files) {
      const holder = name.startsWith("deployment") || (name.startsWith("secret") && name !== "secret-value") ? deploymentsDoc : doc;
      // A file holds one schema named as the file, or several (the outbound events' payloads), each by its $id.
      const exported: unknown[] = Object.values(await import(new URL(`../schemas/${name}.js`, import.meta.url).href));
      const ids = exported.flat().flatMap((s) => (typeof s === "object" && s !== null && "$id" in s ? [String(s.$id)] : []));
      expect(ids, name).to.not.be.empty;
      for (const id of new Set(ids)) expect(holder.components.schemas, `${name}: ${id}`).to.have.property(id);
    }
    for (const d of [doc, deploymentsDoc]) {
      const refs = JSON.stringify(d).match(/"\$ref":"[^"]+"/g) ?? [];
      expect(refs.length).to.be.greaterThan(20);
      for (const ref of refs) {
        const target = ref.slice(8, -1);
        expect(target.startsWith("#/components/schemas/"), target).to.equal(true);
        expect(d.components.schemas, target).to.have.property(target.slice("#/components/schemas/".length));
      }
    }
  });
});
