/** ServerUrl: an MCP server's address, http or https; credentials match servers by it, normalized. */
export const serverUrlSchema = {
  $id: "server-url",
  title: "ServerUrl",
  type: "string",
  format: "uri",
  pattern: "^https?://",
  maxLength: 2048,
} as const;
