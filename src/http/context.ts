/** What request handlers can reach: the services of one process, built once at start. */
import type { Redis } from "ioredis";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import type { AgentService } from "../services/agents.js";
import type { Mongo } from "../store/mongo.js";
import type { OrganizationStore, Principal } from "../store/organizations.js";
import type { Validator } from "./validate.js";

export interface Services {
  config: Config;
  log: Logger;
  mongo: Mongo;
  redis: Redis;
  validator: Validator;
  organizations: OrganizationStore;
  agents: AgentService;
}

export interface AppState {
  requestId: string;
  principal?: Principal;
}
