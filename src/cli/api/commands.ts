/** The API commands: they talk HTTP to the service with an API key (a saved profile or the environment). */
import type { Command } from "commander";
import { agentsCommands, sessionsListCommand } from "./lists.js";
import { loginCommands } from "./login.js";
import { sessionActionCommands } from "./session-actions.js";
import { tailCommand } from "./tail.js";

export function apiCommands(program: Command): void {
  loginCommands(program);
  agentsCommands(program);
  const sessions = program
    .command("sessions")
    .description("the organization's sessions (an API key)")
    .addHelpText("after", "\nA session as the stores hold it (no key, store access): agent-sessions ops sessions tail | inspect <sessionId>");
  sessionsListCommand(sessions);
  sessionActionCommands(sessions);
  tailCommand(sessions);
}
