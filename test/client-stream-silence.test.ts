import { createAgentSessionsClient, type ReconnectInfo } from "@agent-sessions/client";
import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { collectGarbage } from "./support/gc.js";
import { until } from "./support/sessions.js";

describe("the TypeScript client's event stream, against a server gone silent", () => {
  let server: Server;
  let baseUrl: string;
  let opened = 0;

  before(async () => {
    // Answers the stream with one comment, then never writes again, as a stopped process does.
    server = createServer((_req, res) => {
      opened++;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": open\n\n");
    }).listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("drops the silent connection even when its request was garbage-collected meanwhile, and opens a new one", async () => {
    // The application's own fetch: undici follows a Request's signal weakly (nodejs/node#55428).
    const client = createAgentSessionsClient({ baseUrl, apiKey: "key", fetch: (request) => fetch(request) });
    const stopping = new AbortController();
    const reconnects: ReconnectInfo[] = [];
    const before = opened;
    const reading = (async () => {
      for await (const _ of client.events("ses_silent", {
        idleTimeoutMs: 300,
        reconnect: { initialDelayMs: 10, maxDelayMs: 50 },
        signal: stopping.signal,
        onState: (s) => s.state === "reconnecting" && reconnects.push(s),
      }));
    })();
    try {
      await until(
        async () => {
          collectGarbage();
          return reconnects.length;
        },
        (n) => n >= 2,
        10_000,
        "two silent connections dropped",
      );
      expect(String((reconnects[0]!.cause as Error).message)).to.equal("the stream was silent for 300 ms");
      expect(opened - before).to.be.at.least(2);
    } finally {
      stopping.abort();
      await reading;
    }
  });
});
