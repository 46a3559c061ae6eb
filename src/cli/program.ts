/**
 * How every operator command behaves: exit 0 on success; 2 on a usage problem (commander's own, or one
 * a command finds in its options), with the command's help on stderr; 1 when the command failed, with
 * one clear line on stderr (an unknown organization, key or session, a backend that does not answer, a
 * bad environment variable).
 */
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { ConfigError } from "../config.js";

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

export function runProgram(program: Command, argv: string[]): void {
  // A reader that went away (`… | head`) ends the command quietly, as it ends any Unix filter.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => process.exit(err.code === "EPIPE" ? 0 : 1));
  program.parseAsync(argv).then(
    () => process.exit(0),
    (err: unknown) => {
      if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
      const message = err instanceof ConfigError ? `configuration error: ${err.message}` : err instanceof Error ? err.message : String(err);
      process.stderr.write(`${program.name()}: ${message}\n`);
      process.exit(1);
    },
  );
}
