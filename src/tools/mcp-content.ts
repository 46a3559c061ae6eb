/**
 * What an MCP server answers, as the text a model reads: tool results' content blocks, resources and
 * prompts. Binary content is named, not inlined (a model given base64 reads noise).
 */

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
  if (block.type === "resource" && block.resource) return typeof block.resource.text === "string" ? block.resource.text : `[resource ${String(block.resource.uri)}]`;
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
