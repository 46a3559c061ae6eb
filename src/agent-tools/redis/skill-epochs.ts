/**
 * A value per (organization, agent, subject), replaced after every change to the subject's own skills.
 * A worker keeps the skills it listed while the value it read before listing is still current: a turn
 * reads the value (one Redis round trip, no MongoDB read), so a change is seen by the next turn on any
 * worker. A fresh random value rather than a counter: a value that expired or that Redis lost is set
 * anew to one no worker holds, where a counter would count again from zero and could meet an old one.
 * A value expires a day after it was set (a read does not extend it), so subjects long gone keep no
 * keys, and a change whose new value Redis did not take (its write failed after MongoDB's) is seen at
 * the latest a day later.
 */
import { randomBytes } from "node:crypto";
import type { RedisClient } from "../../redis/client.js";
import type { SkillChanges, SkillScope } from "../store/subject-skills.js";
import type { Keys } from "../../redis/keys.js";

/** A day: the values of subjects in use are read at every turn (and set anew when gone). */
const EPOCH_TTL_S = 86_400;

const fresh = () => randomBytes(12).toString("base64url");

export class SkillEpochs implements SkillChanges {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** The current value, set to a fresh one when there is none. */
  async current(scope: SkillScope): Promise<string> {
    const value = fresh();
    const held = await this.redis.set(this.key(scope), value, "EX", EPOCH_TTL_S, "NX", "GET");
    return held ?? value;
  }

  async changed(scope: SkillScope): Promise<void> {
    await this.redis.set(this.key(scope), fresh(), "EX", EPOCH_TTL_S);
  }

  private key(scope: SkillScope): string {
    return this.keys.skillEpoch(scope.orgId, scope.agentId, scope.subjectId);
  }
}
