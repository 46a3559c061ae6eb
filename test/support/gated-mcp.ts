/** An MCP server behind a gate, for tests of provisioning runs that wait on their MCP servers. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpTestServer } from "./mcp-servers.js";
import { listenLoopback } from "./mcp-tools.js";

/**
 * An MCP server behind a gate: while shut, requests are held unanswered (a provisioning run waits on
 * them); once open, they are forwarded to the real server, and so are the held ones whose caller still waits.
 */
export async function gatedMcp(target: McpTestServer) {
  let open = false;
  const held = new Set<{ req: IncomingMessage; res: ServerResponse }>();
  let arrivals = 0;
  let arrived: () => void = () => undefined;
  const firstArrival = new Promise<void>((resolve) => (arrived = resolve));
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers)
        .filter(([k]) => !["host", "connection", "content-length"].includes(k))
        .map(([k, v]) => [k, String(v)]),
    );
    const upstream = await fetch(target.url, { method: req.method!, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
    res.writeHead(upstream.status, Object.fromEntries(upstream.headers));
    if (upstream.body) for await (const chunk of upstream.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
    res.end();
  };
  const server = await listenLoopback(async (req, res) => {
    if (open) return forward(req, res);
    held.add({ req, res });
    arrivals++;
    arrived();
  });
  return {
    url: `${server.origin}/mcp`,
    firstArrival,
    /** Requests held while the gate was shut. */
    arrivals: () => arrivals,
    open() {
      open = true;
      for (const { req, res } of held) {
        if (req.socket.destroyed) continue;
        forward(req, res).catch(() => res.destroy());
      }
    },
    close: () => server.close(),
  };
}
