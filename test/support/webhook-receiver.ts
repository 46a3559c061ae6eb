/** A local webhook receiver: records every request, and answers 500 to the first `failFirst` attempts of each message on purpose. */
import { Webhook } from "standardwebhooks";
import { listenLoopback } from "./mcp-tools.js";

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export async function webhookReceiver() {
  const received: Received[] = [];
  const state = { failFirst: 0 };
  const http = await listenLoopback(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    received.push({ path: req.url ?? "", headers, body: Buffer.concat(chunks).toString("utf8") });
    const attempts = received.filter((r) => r.headers["webhook-id"] === headers["webhook-id"]).length;
    res.writeHead(attempts <= state.failFirst ? 500 : 204).end();
  });
  return {
    received,
    state,
    url: (path: string) => `${http.origin}${path}`,
    /** The requests to `path`, each verified with `secret` (a request signed otherwise throws) and parsed. */
    verified(path: string, secret: string): { id: string; body: any }[] {
      const hook = new Webhook(secret);
      return received.filter((r) => r.path === path).map((r) => ({ id: r.headers["webhook-id"]!, body: hook.verify(r.body, r.headers) }));
    },
    close: () => http.close(),
  };
}
