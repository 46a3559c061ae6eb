/**
 * How every command behaves: exit 0 on success; 2 on a usage problem (commander's own, or one a command
 * finds in its options), with the command's help on stderr; 1 when the command failed, with one clear
 * line on stderr (an unknown organization, key or session, a backend or service that does not answer, a
 * bad environment variable, the API's refusal with its code and status).
 */
import { isApiError } from "@agent-sessions/client";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { ConfigError } from "../config.js";
import { Unreachable } from "./api/connection.js";

/** The root command; subcommands made with `.command()` inherit its settings. */
export function rootCommand(name: string, description: string): Command {
  return new Command(name).description(description).exitOverride().showHelpAfterError();
}

/** A usage problem the command found itself: printed with the command's help, exit 2. */
export function usageError(command: Command, message: string): never {
  return command.error(`error: ${message}`, { exitCode: 2, code: "usage" });
}

/** An option or argument parser from a check: `problem` returns why a value is refused, or null. */
export function checked<T>(parse: (raw: string) => T | { problem: string }): (raw: string) => T {
  return (raw) => {
    const value = parse(raw);
    if (value !== null && typeof value === "object" && "problem" in value) throw new InvalidArgumentError(value.problem);
    return value as T;
  };
}

/** The first error of `err`'s cause chain that is an `Unreachable` (a client may wrap it after its retries). */
function unreachable(err: unknown): Unreachable | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof Unreachable) return e;
  return undefined;
}

/** One line for a failure: the API's refusal says its code and status (and, refusing the key, what to do). */
function failureLine(err: unknown): string {
  const down = unreachable(err);
  if (down) return down.message;
  if (isApiError(err)) {
    const hint = err.status === 401 ? "; the key was refused: agent-sessions login saves another" : "";
    return `${err.message} (${err.code}, HTTP ${err.status})${hint}`;
  }
  if (err instanceof ConfigError) return `configuration error: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

export function runProgram(program: Command, argv: string[]): void {
  // A reader that went away (`… | head`) ends the command quietly, as it ends any Unix filter.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => process.exit(err.code === "EPIPE" ? 0 : 1));
  program.parseAsync(argv).then(
    () => process.exit(0),
    (err: unknown) => {
      if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
      process.stderr.write(`${program.name()}: ${failureLine(err)}\n`);
      process.exit(1);
    },
  );
}
