/**
 * `agents list` and `sessions list`: one page of the API's list, as a table or (`--json`) the page's
 * items as a JSON array; the filters are the API's own query parameters, checked here against the same
 * schemas the service validates with.
 */
import { ok } from "@agent-sessions/client";
import { Option, type Command } from "commander";
import { agentsListQuerySchema } from "../../../schemas/agents-list-query.js";
import { sessionsListQuerySchema } from "../../../schemas/sessions-list-query.js";
import { checked } from "../program.js";
import { shorten, table, when } from "../text.js";
import { apiTarget } from "./connection.js";
import { paint, printJson } from "./output.js";

const MAX_LIMIT = agentsListQuerySchema.properties.limit.maximum;
const count = (name: string, min: number, max: number) =>
  checked((raw) => (/^\d{1,7}$/.test(raw) && Number(raw) >= min && Number(raw) <= max ? Number(raw) : { problem: `${name} is ${min}..${max}` }));

/** `--limit` and `--offset`, as the API bounds them. */
function paged(command: Command): Command {
  return command
    .option("--limit <n>", `at most this many (1..${MAX_LIMIT})`, count("--limit", 1, MAX_LIMIT), 20)
    .option("--offset <n>", "skip this many first", count("--offset", 0, sessionsListQuerySchema.properties.offset.maximum), 0)
    .option("--json", "print the items as a JSON array");
}

/** The table, or that there is nothing; a further page is named on stderr, so stdout stays the list. */
function printPage(rows: string[][], header: string[], none: string, page: { hasMore: boolean; offset: number; limit: number }): void {
  process.stdout.write(rows.length === 0 ? `${none}\n` : table(header, rows));
  if (page.hasMore) process.stderr.write(`more: --offset ${page.offset + page.limit}\n`);
}

const statusPaint = (status: string) =>
  paint(status === "running" ? "cyan" : status === "waiting_on_human" ? "yellow" : status === "archived" ? "dim" : "green", status);

export function agentsCommands(program: Command): void {
  const agents = program.command("agents").description("the organization's agents (an API key)");
  paged(
    agents
      .command("list")
      .description("list agents, newest first: id, name, model, version, status, updated")
      .addOption(new Option("--status <status>", "only agents with this status").choices(agentsListQuerySchema.properties.status.enum)),
  ).action(async (opts: { status?: "active" | "archived"; limit: number; offset: number; json?: boolean }, command: Command) => {
    const { client } = await apiTarget(command);
    const page = await ok(client.api.GET("/v1/agents", { params: { query: { status: opts.status, limit: opts.limit, offset: opts.offset } } }));
    if (opts.json) return void printJson(page.data);
    const rows = page.data.map((a) => [a.id, shorten(a.name, 40), a.version.modelName, String(a.version.version), statusPaint(a.status), when(a.updatedAt)]);
    printPage(rows, ["ID", "NAME", "MODEL", "VERSION", "STATUS", "UPDATED"], "no agents", page.pagination);
  });
}

export function sessionsListCommand(sessions: Command): void {
  paged(
    sessions
      .command("list")
      .description("list sessions, newest first: id, status, agent, subject, title, updated")
      .addOption(
        new Option("--status <status>", "only sessions with this status (archived ones only with it)").choices(sessionsListQuerySchema.properties.status.enum),
      )
      .addOption(new Option("--waiting", "only sessions waiting on a human (an approval, a custom tool's result, an answer)").conflicts("status"))
      .option("--agent <agentId>", "only sessions of this agent")
      .option("--subject <subjectId>", "only sessions of this subject"),
  ).action(
    async (
      opts: {
        status?: "idle" | "running" | "archived";
        waiting?: true;
        agent?: string;
        subject?: string;
        limit: number;
        offset: number;
        json?: boolean;
      },
      command: Command,
    ) => {
      const { client } = await apiTarget(command);
      const query = { status: opts.status, waitingOnHuman: opts.waiting, agentId: opts.agent, subjectId: opts.subject, limit: opts.limit, offset: opts.offset };
      const page = await ok(client.api.GET("/v1/sessions", { params: { query } }));
      if (opts.json) return void printJson(page.data);
      const rows = page.data.map((s) => [
        s.id,
        statusPaint(s.status),
        s.agentId,
        s.subjectId,
        s.title === null ? "-" : shorten(s.title, 40),
        when(s.updatedAt),
      ]);
      printPage(rows, ["ID", "STATUS", "AGENT", "SUBJECT", "TITLE", "UPDATED"], "no sessions", page.pagination);
    },
  );
}
