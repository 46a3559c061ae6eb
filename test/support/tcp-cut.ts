/**
 * A TCP proxy in front of a real server (Redis, FerretDB) that a test can cut and restore: cut, it drops
 * every connection and refuses new ones, as a store that went down does; restored, it forwards again.
 * Stalled, it keeps every connection open and forwards nothing, as a server that hangs does.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface TcpCut {
  /** `host:port` of the proxy. */
  address: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  /** Forwards nothing, either way, until `flow`; connections stay open and new ones are accepted. */
  stall(): void;
  flow(): void;
  close(): Promise<void>;
}

export async function startTcpCut(target: { host: string; port: number }): Promise<TcpCut> {
  const open = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let stalled = false;
  const join = ([client, upstream]: [Socket, Socket]) => client.pipe(upstream).pipe(client);
  let server: Server;
  let port = 0;
  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const s of [client, upstream]) {
        open.add(s);
        s.on("close", () => open.delete(s));
        s.on("error", () => undefined);
      }
      const pair: [Socket, Socket] = [client, upstream];
      pairs.add(pair);
      if (!stalled) join(pair);
      client.on("close", () => pairs.delete(pair));
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    server.listen(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
    port = (server.address() as AddressInfo).port;
  };
  const stop = async () => {
    for (const s of open) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  await listen();
  return {
    address: `127.0.0.1:${port}`,
    cut: stop,
    restore: listen,
    stall: () => {
      stalled = true;
      // Unpiped, each side keeps what arrives in its buffer; `flow` passes it on.
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
      }
    },
    flow: () => {
      stalled = false;
      for (const pair of pairs) join(pair);
    },
    close: async () => {
      if (server.listening) await stop();
    },
  };
}
