#!/usr/bin/env node
/**
 * `agent-sessions`: the operator's command line (package.json `bin`; `npm run -s cli -- …` in a checkout).
 * It reads the service's environment (MONGO_URL, REDIS_URL, REDIS_KEY_PREFIX) and works on the stores
 * directly: API keys, credits, and a session's log, state, lock and pending work.
 */
import { creditsCommands } from "./credits.js";
import { keysCommands } from "./keys.js";
import { rootCommand, runProgram } from "./program.js";
import { sessionsCommands } from "./sessions.js";

const program = rootCommand(
  "agent-sessions",
  "Operate an agent sessions service: API keys, credits, sessions (MONGO_URL, REDIS_URL, REDIS_KEY_PREFIX as the service reads them).",
);
keysCommands(program);
creditsCommands(program);
sessionsCommands(program);
runProgram(program, process.argv);
