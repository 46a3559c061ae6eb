import { expect } from "chai";
import { deploymentBody, deploymentsClient } from "./support/deployments.js";
import { expectValidation } from "./support/expect.js";
import { startServer, type Client, type TestServer } from "./support/server.js";

describe("deployments: list", () => {
  let server: TestServer;
  let api: Client;
  const created: string[] = [];

  before(async () => {
    server = await startServer();
    ({ api } = await deploymentsClient(server));
    for (let i = 0; i < 7; i++) {
      const res = await api.post("/v1/deployments", deploymentBody({ customer_id: i % 2 === 0 ? "even" : "odd", name: `d${i}` }));
      created.push(res.body.deployment_id);
    }
  });
  after(async () => server.close());

  async function all(query: string, limit: number): Promise<any[]> {
    const items: any[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await api.get(`/v1/deployments?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).to.equal(200);
      expect(res.body.data.length).to.be.at.most(limit);
      items.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    return items;
  }

  it("pages newest first with an opaque cursor, null at the end, summaries only", async () => {
    const items = await all("", 3);
    expect(items.map((d) => d.deployment_id)).to.deep.equal([...created].reverse());
    expect(items[0]).to.have.keys("deployment_id", "customer_id", "name", "runtime", "status", "model", "created_at");
    const first = await api.get("/v1/deployments");
    expect(first.body.data).to.have.length(7);
    expect(first.body.next_cursor).to.equal(null);
  });

  it("filters by customer_id and status", async () => {
    expect((await all("&customer_id=even", 2)).map((d) => d.name)).to.deep.equal(["d6", "d4", "d2", "d0"]);
    expect(await all("&customer_id=nobody", 2)).to.deep.equal([]);
    const ready = await all("&status=ready", 100);
    expect(ready.every((d) => d.status === "ready")).to.equal(true);
    expect(await all("&status=error", 100)).to.deep.equal([]);
  });

  it("stays correct while deployments are created between pages", async () => {
    const page1 = await api.get("/v1/deployments?limit=3");
    const added = await Promise.all([0, 1, 2].map((i) => api.post("/v1/deployments", deploymentBody({ name: `new${i}` }))));
    const rest: any[] = [];
    let cursor = page1.body.next_cursor;
    while (cursor) {
      const res = await api.get(`/v1/deployments?limit=3&cursor=${cursor}`);
      rest.push(...res.body.data);
      cursor = res.body.next_cursor;
    }
    const seen = [...page1.body.data, ...rest].map((d: any) => d.deployment_id);
    expect(seen).to.deep.equal([...created].reverse(), "no duplicate, none skipped");
    const now = await all("", 100);
    expect(
      now
        .slice(0, 3)
        .map((d) => d.deployment_id)
        .sort(),
    ).to.deep.equal(added.map((r) => r.body.deployment_id).sort());
  });

  it("refuses bad queries and a cursor of other filters", async () => {
    expectValidation(await api.get("/v1/deployments?limit=0"), "limit: must be >= 1");
    expectValidation(await api.get("/v1/deployments?limit=101"), "limit: must be <= 100");
    expectValidation(await api.get("/v1/deployments?status=deleted"), "status: must be one of: provisioning, ready, error");
    expectValidation(await api.get("/v1/deployments?cursor=garbage"), "cursor: must be a next_cursor this list returned");
    const page = await api.get("/v1/deployments?limit=1&customer_id=even");
    expectValidation(
      await api.get(`/v1/deployments?limit=1&cursor=${page.body.next_cursor}`),
      "cursor: was made for other filters (send the customer_id and status of the request that returned it)",
    );
    expectValidation(await api.get("/v1/deployments?colour=red"), "colour: is not allowed");
  });
});
