#!/usr/bin/env node
/**
 * `agent-sessions` (package.json `bin`; `npm run -s cli -- …` in a checkout), with two faces. The API
 * commands (`login`, `agents`, `sessions`) talk HTTP to a service with an API key, as any client does.
 * The operator commands (`ops`: keys, credits, a session's log and state) work on the stores directly,
 * with the service's environment (MONGO_URL, REDIS_URL, REDIS_KEY_PREFIX) and no key. `keys` and
 * `credits` stay at the top as hidden aliases of `ops keys` and `ops credits`.
 */
import { apiCommands } from "./api/commands.js";
import { creditsCommands } from "./credits.js";
import { keysCommands } from "./keys.js";
import { rootCommand, runProgram } from "./program.js";
import { sessionsCommands } from "./sessions.js";

const program = rootCommand(
  "agent-sessions",
  "Use and operate an agent sessions service: API commands with a key, operator commands (ops) with store access.",
).option("--profile <name>", "the saved profile the API commands use (default: AGENT_SESSIONS_PROFILE, or default)");

program.commandsGroup("API commands (an API key: agent-sessions login, or AGENT_SESSIONS_API_KEY and AGENT_SESSIONS_URL):");
apiCommands(program);

program.commandsGroup("Operator commands (store access: MONGO_URL, REDIS_URL, REDIS_KEY_PREFIX as the service reads them; no key):");
const ops = program.command("ops").description("API keys, credits, and a session's log, state, lock and pending work, read from the stores");
keysCommands(ops);
creditsCommands(ops);
sessionsCommands(ops);
keysCommands(program, true);
creditsCommands(program, true);

runProgram(program, process.argv);
