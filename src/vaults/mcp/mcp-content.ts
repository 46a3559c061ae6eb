/**
 * What an MCP server answers, as the text a model reads: tool results' content blocks, resources and
 * prompts. Binary content is named, not inlined (a model given base64 reads noise).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpReadTool } from "../domain/mcp-tools.js";

interface Block {
  type: string;
  text?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  resource?: { uri?: unknown; text?: unknown; mimeType?: unknown };
}

const isBlock = (b: unknown): b is Block => typeof b === "object" && b !== null && "type" in b && typeof (b as { type: unknown }).type === "string";

/** One content block of a tool result or prompt message, as text. */
export function contentText(block: unknown): string {
  if (!isBlock(block)) return "";
  if (block.type === "text" && typeof block.text === "string") return block.text;
  if (block.type === "resource" && block.resource)
    return typeof block.resource.text === "string" ? block.resource.text : `[resource ${String(block.resource.uri)}]`;
  if (block.type === "resource_link") return `[resource link ${String(block.uri)}]`;
  return `[${block.type}${typeof block.mimeType === "string" ? ` ${block.mimeType}` : ""}]`;
}

/** The contents of `resources/read`, each text as it is, each binary named by uri and type. */
export function resourceText(contents: readonly { uri: string; mimeType?: string; text?: unknown; blob?: unknown }[]): string {
  return contents.map((c) => (typeof c.text === "string" ? c.text : `[binary ${c.uri}${c.mimeType ? ` ${c.mimeType}` : ""}]`)).join("\n");
}

/** The messages of `prompts/get`, a line per message prefixed with its role. */
export function promptText(description: string | undefined, messages: readonly { role: string; content: unknown }[]): string {
  const lines = description ? [description] : [];
  for (const m of messages) lines.push(`${m.role}: ${contentText(m.content)}`);
  return lines.join("\n");
}

/** A read tool's request (`list_resources`, `read_resource`, `list_prompts`, `get_prompt`), answered as text. */
export async function readAsText(
  client: Client,
  what: McpReadTool,
  input: Record<string, unknown>,
  options: { signal?: AbortSignal; timeout: number },
): Promise<string> {
  const cursor = typeof input.cursor === "string" ? { cursor: input.cursor } : {};
  switch (what) {
    case "list_resources": {
      const page = await client.listResources(cursor, options);
      const resources = page.resources.map((r) => ({ uri: r.uri, name: r.name, description: r.description, mimeType: r.mimeType }));
      return JSON.stringify({ resources, nextCursor: page.nextCursor });
    }
    case "read_resource":
      return resourceText((await client.readResource({ uri: String(input.uri ?? "") }, options)).contents);
    case "list_prompts": {
      const page = await client.listPrompts(cursor, options);
      const prompts = page.prompts.map((p) => ({ name: p.name, description: p.description, arguments: p.arguments }));
      return JSON.stringify({ prompts, nextCursor: page.nextCursor });
    }
    case "get_prompt": {
      const given = typeof input.arguments === "object" && input.arguments !== null ? input.arguments : {};
      const args = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, String(v)]));
      const prompt = await client.getPrompt({ name: String(input.name ?? ""), arguments: args }, options);
      return promptText(prompt.description, prompt.messages);
    }
  }
}
