/** What request handlers can reach: the services of one process, built once at start. */
import type { Redis } from "ioredis";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import type { EventLog } from "../redis/event-log.js";
import type { StreamReader } from "../redis/stream-reader.js";
import type { AgentService } from "../services/agents.js";
import type { EventService } from "../services/events.js";
import type { SessionService } from "../services/sessions.js";
import type { AgentStore } from "../store/agents.js";
import type { SessionStore } from "../store/sessions.js";
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
  agentStore: AgentStore;
  sessionStore: SessionStore;
  eventLog: EventLog;
  agents: AgentService;
  sessions: SessionService;
  events: EventService;
  /** The process's shared SSE reader, started on first use. */
  streamReader(): StreamReader;
}

export interface AppState {
  requestId: string;
  principal?: Principal;
}
