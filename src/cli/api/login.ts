/**
 * `login` and `logout`: a profile made from a base URL and an API key, checked against the service
 * before it is saved. The key is read from stdin (a pipe: `… | agent-sessions login`), or asked for
 * without echo on a terminal; never from the command line, where `ps` and the shell's history would keep it.
 */
import { createInterface } from "node:readline/promises";
import { ok } from "@agent-sessions/client";
import type { Command } from "commander";
import { AppError } from "../../errors.js";
import { baseUrl, clientOf, DEFAULT_URL, keyIdOf, profileName } from "./connection.js";
import { printJson } from "./output.js";
import { configPath, readProfiles, removeProfile, saveProfile } from "./profiles.js";

/** The key typed on a terminal, echoing nothing; Ctrl-C abandons. */
function askHidden(prompt: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.resume();
  input.setEncoding("utf8");
  return new Promise((resolve, reject) => {
    let typed = "";
    const done = (finish: () => void) => {
      input.setRawMode(false);
      input.pause();
      input.off("data", onData);
      process.stderr.write("\n");
      finish();
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") return done(() => resolve(typed));
        if (ch === "\u0003") return done(() => reject(new AppError("validation_error", "login abandoned")));
        typed = ch === "\u007f" || ch === "\b" ? typed.slice(0, -1) : typed + ch;
      }
    };
    input.on("data", onData);
  });
}

async function readStdin(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

/** The base URL: `--url`, else asked on a terminal (offering the current one), else the current one. */
async function chosenUrl(given: string | undefined, current: string): Promise<string> {
  if (given) return baseUrl(given, "--url");
  if (!process.stdin.isTTY) return current;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`API base URL (${current}): `)).trim();
    return answer ? baseUrl(answer, "the URL") : current;
  } finally {
    rl.close();
  }
}

export function loginCommands(program: Command): void {
  program
    .command("login")
    .description("save a profile: a base URL and an API key, checked with a request first (the key from stdin, or asked for on a terminal)")
    .option("--url <url>", `the service's base URL (default: AGENT_SESSIONS_URL, the profile's, or ${DEFAULT_URL})`)
    .option("--json", "print {profile, url, keyId, path} as JSON")
    .action(async (opts: { url?: string; json?: boolean }, command: Command) => {
      const profile = profileName(command);
      const saved = (await readProfiles())[profile];
      const current = process.env.AGENT_SESSIONS_URL ? baseUrl(process.env.AGENT_SESSIONS_URL, "AGENT_SESSIONS_URL") : (saved?.url ?? DEFAULT_URL);
      const url = await chosenUrl(opts.url, current);
      const apiKey = (process.stdin.isTTY ? await askHidden("API key (ask_…, not echoed): ") : (await readStdin()).split("\n")[0]!).trim();
      if (!apiKey) throw new AppError("validation_error", "no API key given: pipe it on stdin (… | agent-sessions login) or type it at the prompt");
      // A request every key of the core interface may make: the key works, and for this interface.
      await ok(clientOf(url, apiKey).api.GET("/v1/agents", { params: { query: { limit: 1 } } }));
      await saveProfile(profile, { url, apiKey });
      const result = { profile, url, keyId: keyIdOf(apiKey), path: configPath() };
      if (opts.json) return void printJson(result);
      process.stdout.write(`logged in to ${url} with ${result.keyId} as profile "${profile}" (saved in ${result.path})\n`);
    });

  program
    .command("logout")
    .description("remove a saved profile (its key stays valid on the service: ops keys revoke revokes it)")
    .action(async (_opts: unknown, command: Command) => {
      const profile = profileName(command);
      const removed = await removeProfile(profile);
      process.stdout.write(removed ? `removed profile "${profile}" from ${configPath()}\n` : `no profile "${profile}" in ${configPath()}\n`);
    });
}
