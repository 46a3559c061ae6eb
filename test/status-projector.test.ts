import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { newId } from "../src/ids.js";
import { createLogger } from "../src/log.js";
import type { RedisClient } from "../src/redis/client.js";
import type { Keys } from "../src/redis/keys.js";
import { Intents } from "../src/sessions/redis/intents.js";
import type { StateSummary } from "../src/sessions/redis/log-entries.js";
import { StatusProjector, type ProjectionWrite, type StatusProjection } from "../src/sessions/status-projector.js";
import { testKeys, testRedis } from "./support/redis.js";

/**
 * The status projector on its own: what it writes of the commits' projections (the records' side is a
 * recorder of what it was asked; the writers' marks and their clearing are Redis's), when, and how the
 * generated title's write takes its turn with a session's projections. `drain` writes at once, so no
 * test waits for the tick.
 */
describe("the status projector", () => {
  let redis: RedisClient;
  let intents: Intents;
  let keys: Keys;

  /** Records each `projectStates` call; a call waits for `gate` when one is set. */
  class Recorder implements StatusProjection {
    readonly batches: ProjectionWrite[][] = [];
    gate: Promise<void> | null = null;
    async projectState(sessionId: string, projection: ProjectionWrite["projection"]): Promise<void> {
      await this.projectStates([{ sessionId, projection }]);
    }
    async projectStates(batch: readonly ProjectionWrite[]): Promise<ReadonlySet<string>> {
      this.batches.push([...batch]);
      if (this.gate) await this.gate;
      return new Set(batch.map((b) => b.sessionId));
    }
  }

  /** The runtime statuses the projector reads before writing: each session's given here. */
  const runtime = (statuses: Map<string, StateSummary["status"]>) => async (ids: string[]) =>
    new Map(ids.map((id) => [id, statuses.has(id) ? { status: statuses.get(id)! } : undefined]));

  /** A writer's mark, as a commit leaves it. */
  const mark = async (sessionId: string) => {
    const member = `${sessionId} ${randomBytes(6).toString("base64url")}`;
    await redis.zadd(keys.projections(keys.shardOf(sessionId)), Date.now(), member);
    return member;
  };
  const marked = async (member: string) => (await redis.zscore(keys.projections(keys.shardOf(member.split(" ")[0]!)), member)) !== null;

  /** Resolves after the event loop has gone round a few times: long enough for any ready continuation to run. */
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };

  before(() => {
    keys = testKeys();
    redis = testRedis();
    intents = new Intents(redis, keys);
  });
  after(() => redis.disconnect());

  it("writes a session's latest status once: one overwritten before the tick is never written, and both writers' marks are cleared", async () => {
    const records = new Recorder();
    const id = newId("ses");
    const projector = new StatusProjector(records, intents, runtime(new Map([[id, "idle"]])), createLogger("error"));
    const [running, idle] = [await mark(id), await mark(id)];
    projector.project(id, { status: { version: 3, status: "running" } }, running);
    projector.project(id, { status: { version: 5, status: "idle" }, usage: { version: 5, usage: null } }, idle);
    await projector.drain();
    expect(records.batches).to.deep.equal([[{ sessionId: id, projection: { status: { version: 5, status: "idle" }, usage: { version: 5, usage: null } } }]]);
    expect(await marked(running)).to.equal(false);
    expect(await marked(idle)).to.equal(false);
  });

  it("leaves a status another process has since changed to that process's writer, and still writes the usage total it carries", async () => {
    const records = new Recorder();
    const [moved, kept, withUsage] = [newId("ses"), newId("ses"), newId("ses")];
    const statuses = new Map<string, StateSummary["status"]>([
      [moved, "idle"],
      [kept, "running"],
      [withUsage, "idle"],
    ]);
    const projector = new StatusProjector(records, intents, runtime(statuses), createLogger("error"));
    const marks = [await mark(moved), await mark(kept), await mark(withUsage)];
    projector.project(moved, { status: { version: 2, status: "running" } }, marks[0]!);
    projector.project(kept, { status: { version: 2, status: "running" } }, marks[1]!);
    projector.project(withUsage, { status: { version: 4, status: "running" }, usage: { version: 4, usage: null } }, marks[2]!);
    await projector.drain();
    expect(records.batches).to.have.length(1);
    expect(records.batches[0]).to.have.deep.members([
      { sessionId: kept, projection: { status: { version: 2, status: "running" } } },
      { sessionId: withUsage, projection: { usage: { version: 4, usage: null } } },
    ]);
    // The dropped status's mark goes too: the commit that moved the session on marked its own writer.
    for (const member of marks) expect(await marked(member)).to.equal(false);
  });

  it("writes as asked a session without runtime state", async () => {
    const records = new Recorder();
    const id = newId("ses");
    const projector = new StatusProjector(records, intents, runtime(new Map()), createLogger("error"));
    projector.project(id, { status: { version: 1, status: "idle" } }, await mark(id));
    await projector.drain();
    expect(records.batches).to.deep.equal([[{ sessionId: id, projection: { status: { version: 1, status: "idle" } } }]]);
  });

  it("runs another write of a session's record only when no projection of it is being written, and holds the next one back until it is done", async () => {
    const records = new Recorder();
    const id = newId("ses");
    const projector = new StatusProjector(records, intents, runtime(new Map([[id, "running"]])), createLogger("error"));
    let open!: () => void;
    records.gate = new Promise((resolve) => (open = resolve));
    projector.project(id, { status: { version: 2, status: "running" } }, await mark(id));
    const drained = projector.drain();
    await settle();
    expect(records.batches).to.have.length(1); // under way, held at the gate

    const order: string[] = [];
    let finishTitle!: () => void;
    const title = projector.exclusive(id, async () => {
      order.push("title started");
      await new Promise<void>((resolve) => (finishTitle = resolve));
      order.push("title written");
      return true;
    });
    await settle();
    expect(order).to.deep.equal([]); // waits for the projection's write
    open();
    await drained;
    await settle();
    expect(order).to.deep.equal(["title started"]);

    records.gate = null;
    projector.project(id, { status: { version: 4, status: "running" } }, await mark(id));
    const next = projector.drain();
    await settle();
    expect(records.batches).to.have.length(1); // held back while the title is written
    finishTitle();
    expect(await title).to.equal(true);
    await next;
    expect(order).to.deep.equal(["title started", "title written"]);
    expect(records.batches).to.have.length(2);
    expect(records.batches[1]).to.deep.equal([{ sessionId: id, projection: { status: { version: 4, status: "running" } } }]);
  });
});
