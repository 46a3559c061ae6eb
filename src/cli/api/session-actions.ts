/**
 * `sessions send | approve | deny`: events posted to a session through the API, each with its own
 * `Idempotency-Key` so a retried request is applied once. What was accepted is printed (its id and
 * status), or with `--json` the accepted events as the API answers them.
 */
import { randomUUID } from "node:crypto";
import { ok, type components } from "@agent-sessions/client";
import { Argument, Option, type Command } from "commander";
import { userApprovalResponseSchema } from "../../../schemas/user-approval-response.js";
import { AppError } from "../../errors.js";
import { checked } from "../program.js";
import { sessionIdArgument } from "../sessions.js";
import { apiTarget } from "./connection.js";
import { printJson } from "./output.js";

type Inbound = components["schemas"]["inbound-event"];
type Scope = NonNullable<components["schemas"]["user-approval-response"]["scope"]>;

const eventIdArgument = (description: string) =>
  new Argument("<eventId>", description).argParser(
    checked((raw) => (/^[A-Za-z0-9_-]{1,100}$/.test(raw) ? raw : { problem: "an event id is 1..100 of A-Z a-z 0-9 _ -" })),
  );

async function post(command: Command, sessionId: string, event: Inbound, json: boolean, delivery?: "when_idle"): Promise<void> {
  const { client } = await apiTarget(command);
  const accepted = await ok(
    client.api.POST("/v1/sessions/{sessionId}/events", {
      params: { path: { sessionId }, header: { "Idempotency-Key": randomUUID() } },
      body: { events: [event], ...(delivery ? { delivery } : {}) },
    }),
  );
  if (json) return void printJson(accepted.data);
  for (const e of accepted.data) process.stdout.write(`${e.type} ${e.id} ${e.status ?? ""}`.trimEnd() + "\n");
}

async function textOf(words: string[]): Promise<string> {
  if (words.length !== 1 || words[0] !== "-") return words.join(" ");
  let text = "";
  for await (const chunk of process.stdin) text += String(chunk);
  if (!text.trim()) throw new AppError("validation_error", "stdin held no text to send");
  return text;
}

export function sessionActionCommands(sessions: Command): void {
  sessions
    .command("send")
    .description("send a user message (several words are joined by spaces; - reads the text from stdin)")
    .addArgument(sessionIdArgument())
    .argument("<text...>", "the message")
    .option("--when-idle", "while a turn runs, queue it to run as a turn of its own once the session is idle")
    .option("--json", "print the accepted event as JSON")
    .action(async (sessionId: string, words: string[], opts: { whenIdle?: boolean; json?: boolean }, command: Command) => {
      const text = await textOf(words);
      const message: Inbound = { type: "user.message", content: [{ type: "text", text }] };
      await post(command, sessionId, message, opts.json ?? false, opts.whenIdle ? "when_idle" : undefined);
    });

  sessions
    .command("approve")
    .description("allow a pending tool call: answer its agent.approval_request")
    .addArgument(sessionIdArgument())
    .addArgument(eventIdArgument("the agent.approval_request event's id"))
    .addOption(new Option("--scope <scope>", "how long the approval holds (default once)").choices(userApprovalResponseSchema.properties.scope.enum))
    .option("--json", "print the accepted event as JSON")
    .action(async (sessionId: string, approvalId: string, opts: { scope?: Scope; json?: boolean }, command: Command) => {
      const event: Inbound = { type: "user.approval_response", approval_id: approvalId, result: "allow", ...(opts.scope ? { scope: opts.scope } : {}) };
      await post(command, sessionId, event, opts.json ?? false);
    });

  sessions
    .command("deny")
    .description("refuse a pending tool call: answer its agent.approval_request")
    .addArgument(sessionIdArgument())
    .addArgument(eventIdArgument("the agent.approval_request event's id"))
    .option("--reason <text>", "why, given to the model with the denial")
    .option("--json", "print the accepted event as JSON")
    .action(async (sessionId: string, approvalId: string, opts: { reason?: string; json?: boolean }, command: Command) => {
      const event: Inbound = { type: "user.approval_response", approval_id: approvalId, result: "deny", ...(opts.reason ? { reason: opts.reason } : {}) };
      await post(command, sessionId, event, opts.json ?? false);
    });
}
