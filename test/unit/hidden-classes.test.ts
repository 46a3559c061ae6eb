import { expect } from "chai";
import { Redis } from "ioredis";
import type { Context } from "koa";
import type { AppState } from "../../src/http/context.js";
import { HandlerRequest } from "../../src/http/route.js";

/**
 * An accessor defined on each object (a getter in an object literal, or `Object.defineProperty` with a
 * getter) gives that object a hidden class of its own, allocated in V8's old generation. The class holds
 * the getter, whose closure holds the object: every young collection then keeps the object and all it
 * points to alive until a full collection, so short-lived objects promote and the pauses grow with them
 * (docs/decisions/performance.md, "What the collections copied"). The objects made for every request keep their accessors on
 * a prototype.
 */
describe("objects made per request keep their accessors on a prototype", () => {
  it("an ioredis pipeline has no own `length` (patches/ioredis+*.patch is applied) and still counts its commands", () => {
    const redis = new Redis({ lazyConnect: true });
    try {
      const pipeline = redis.pipeline();
      expect(Object.getOwnPropertyDescriptor(pipeline, "length")).to.equal(undefined);
      pipeline.get("a").get("b");
      expect(pipeline.length).to.equal(2);
    } finally {
      redis.disconnect();
    }
  });

  it("a handler's request reads its organization through the class, lazily", () => {
    const state: AppState = { requestId: "r" };
    const request = new HandlerRequest({}, {}, {}, Promise.resolve(), undefined, { state } as Context & { state: AppState });
    expect(Object.getOwnPropertyDescriptor(request, "orgId")).to.equal(undefined);
    expect(() => request.orgId).to.throw("missing API key");
    state.principal = { orgId: "org_1", keyId: "k", requestsPerMinute: 1, scopes: [] };
    expect(request.orgId).to.equal("org_1");
  });
});
