import { expect } from "chai";
import { Cluster, Redis } from "ioredis";
import { MongoClient, MongoServerError } from "mongodb";
import { failedStore, unreachableStore } from "../../src/store-errors.js";
import { unavailable } from "../../src/errors.js";
import { env } from "../support/hooks.js";

/** What a command of `redis` rejects with. */
const rejectionOf = (redis: Redis) =>
  redis.get("k").then(
    () => undefined,
    (err: unknown) => err,
  );

describe("which store a failed request failed on (store_errors_total)", () => {
  it("names Redis for ioredis's errors: a closed connection, retries run out, an error reply; wrapped ones too", async () => {
    const closed = new Redis({ lazyConnect: true });
    closed.disconnect();
    const afterClose = await rejectionOf(closed);
    expect(String(afterClose)).to.include("Connection is closed");
    expect(failedStore(afterClose)).to.equal("redis");

    // Nothing listens on port 1: the client gives up after its retries.
    const unreachable = new Redis({ port: 1, maxRetriesPerRequest: 0, retryStrategy: () => 10 });
    unreachable.on("error", () => undefined);
    const retries = await rejectionOf(unreachable);
    unreachable.disconnect();
    expect((retries as Error).name).to.equal("MaxRetriesPerRequestError");
    expect(failedStore(retries)).to.equal("redis");
    expect(failedStore(unavailable("the wake-up could not be sent", retries))).to.equal("redis");

    const live = new Redis(env.redisUrl);
    const reply = await live.call("NO-SUCH-COMMAND").then(
      () => undefined,
      (err: unknown) => err,
    );
    live.disconnect();
    expect((reply as Error).name).to.equal("ReplyError");
    expect(failedStore(reply)).to.equal("redis");
  });

  it("names MongoDB for the driver's errors, and nothing for others", () => {
    expect(failedStore(new MongoServerError({ message: "E11000 duplicate key", code: 11000 }))).to.equal("mongodb");
    expect(failedStore(new Error("boom"))).to.equal(undefined);
    expect(failedStore("not an error")).to.equal(undefined);
  });

  it("tells a store out of reach from a command it refused", async () => {
    // Nothing listens on port 1.
    const mongo = new MongoClient("mongodb://127.0.0.1:1/x", { serverSelectionTimeoutMS: 200 });
    const selection = await mongo
      .db()
      .collection("c")
      .findOne({})
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    await mongo.close();
    expect((selection as Error).name).to.equal("MongoServerSelectionError");
    expect(unreachableStore(selection)).to.equal("mongodb");
    expect(unreachableStore(new MongoServerError({ message: "E11000 duplicate key", code: 11000 }))).to.equal(undefined);

    const closed = new Redis({ lazyConnect: true });
    closed.disconnect();
    const afterClose = await rejectionOf(closed);
    expect(unreachableStore(unavailable("the request ceiling cannot be verified", afterClose))).to.equal("redis");
    const live = new Redis(env.redisUrl);
    const reply = await live.call("NO-SUCH-COMMAND").then(
      () => undefined,
      (err: unknown) => err,
    );
    live.disconnect();
    expect(unreachableStore(reply)).to.equal(undefined);
    expect(unreachableStore(new Error("boom"))).to.equal(undefined);
  });

  it("tells a Redis Cluster out of reach: no seed node answers, the cluster is down or moving a slot", async () => {
    // Nothing listens on port 1: the cluster client gives up at once.
    const cluster = new Cluster([{ host: "127.0.0.1", port: 1 }], { clusterRetryStrategy: () => null });
    cluster.on("error", () => undefined);
    const none = await cluster.get("k").then(
      () => undefined,
      (err: unknown) => err,
    );
    cluster.disconnect();
    expect(String(none)).to.include("None of startup nodes is available");
    expect(unreachableStore(none)).to.equal("redis");
    // What ioredis rejects the rest of a pipeline with when the connection closes after its first answers.
    const aborted = Object.assign(new Error("Command aborted due to connection close"), { name: "AbortError" });
    expect(unreachableStore(aborted)).to.equal("redis");
    expect(unreachableStore(Object.assign(new Error("This operation was aborted"), { name: "AbortError" }))).to.equal(undefined);
    const down = Object.assign(new Error("CLUSTERDOWN The cluster is down"), { name: "ReplyError" });
    expect(unreachableStore(down)).to.equal("redis");
    expect(failedStore(down)).to.equal("redis");
  });
});
