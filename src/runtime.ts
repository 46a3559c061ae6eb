/** Builds the services of one process from its config, and tears them down in order. */
import type { Config } from "./config.js";
import type { Services } from "./http/context.js";
import { Validator } from "./http/validate.js";
import type { Logger } from "./log.js";
import { createRedis } from "./redis/client.js";
import { AgentService } from "./services/agents.js";
import { AgentStore } from "./store/agents.js";
import { connectMongo, ensureIndexes } from "./store/mongo.js";
import { OrganizationStore } from "./store/organizations.js";
import { SessionStore } from "./store/sessions.js";

export async function createServices(config: Config, log: Logger): Promise<Services> {
  const validator = new Validator();
  const mongo = await connectMongo(config.mongoUrl);
  await ensureIndexes(mongo.db);
  const redis = createRedis(config.redisUrl, "agent-sessions");
  await redis.ping();
  const sessions = new SessionStore(mongo.db);
  return {
    config,
    log,
    mongo,
    redis,
    validator,
    organizations: new OrganizationStore(mongo.db),
    agents: new AgentService(new AgentStore(mongo.db), sessions),
  };
}

export async function closeServices(services: Services): Promise<void> {
  await Promise.allSettled([services.redis.quit(), services.mongo.client.close()]);
}
