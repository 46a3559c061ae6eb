/**
 * One keep-alive TCP connection to a server, written by hand: requests go out as bytes, answers are
 * read off it one at a time, and how the server ended it (a clean close, or a reset) is kept. For
 * tests of what a refused request leaves on its connection, which an HTTP client's pool would hide.
 * Every answer is checked against the served document, as the test client's are.
 */
import { expect } from "chai";
import { connect, type Socket } from "node:net";
import { checkResponse } from "./contract.js";

export interface RawAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: any;
}

export class RawConnection {
  private received = Buffer.alloc(0);
  private wake: () => void = () => undefined;
  private closedBy: "end" | "reset" | undefined;
  /** The requests sent and not yet answered, oldest first. */
  private readonly pending: { method: string; path: string }[] = [];
  /** Settles when the server ends the connection: `end` a clean close (its FIN read), `reset` an error. */
  readonly ended: Promise<"end" | "reset">;

  private constructor(
    private readonly baseUrl: string,
    private readonly socket: Socket,
  ) {
    this.ended = new Promise((resolve) => {
      const settle = (how: "end" | "reset") => {
        this.closedBy ??= how;
        resolve(this.closedBy);
        this.wake();
      };
      socket.on("end", () => settle("end"));
      socket.on("error", () => settle("reset"));
      socket.on("close", () => settle("reset"));
    });
    socket.on("data", (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
  }

  static async open(baseUrl: string): Promise<RawConnection> {
    const { hostname, port } = new URL(baseUrl);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    return new RawConnection(baseUrl, socket);
  }

  /** Writes a request; the body's length goes in `Content-Length` unless `headers` set another framing. */
  send(method: string, path: string, headers: Record<string, string>, body: Buffer = Buffer.alloc(0)): void {
    const framing = Object.keys(headers).some((h) => /^(content-length|transfer-encoding)$/i.test(h)) ? {} : { "content-length": String(body.length) };
    const lines = Object.entries({ host: "localhost", ...framing, ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
    this.pending.push({ method, path });
    this.socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join("")}\r\n`);
    if (body.length > 0) this.socket.write(body);
  }

  /** The next answer on the connection (every answer of the service carries `Content-Length`). */
  async answer(): Promise<RawAnswer> {
    const headEnd = await this.until(() => {
      const at = this.received.indexOf("\r\n\r\n");
      return at < 0 ? undefined : at;
    });
    const [statusLine, ...lines] = this.received.subarray(0, headEnd).toString("latin1").split("\r\n");
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    if (headers["content-length"] === undefined) throw new Error(`an answer without Content-Length: ${statusLine}`);
    const end = headEnd + 4 + Number(headers["content-length"]);
    await this.until(() => (this.received.length >= end ? true : undefined));
    const text = this.received.subarray(headEnd + 4, end).toString("utf8");
    this.received = this.received.subarray(end);
    const answer = { status: Number(statusLine!.split(" ")[1]), headers, body: text ? JSON.parse(text) : undefined };
    const { method, path } = this.pending.shift()!;
    await checkResponse(this.baseUrl, method, path, { status: answer.status, headers: new Headers(headers) }, answer.body);
    return answer;
  }

  close(): void {
    this.socket.destroy();
  }

  /** Waits for `ready` to hold of what was received; throws if the server ends the connection first. */
  private async until<T>(ready: () => T | undefined): Promise<T> {
    for (;;) {
      const value = ready();
      if (value !== undefined) return value;
      if (this.closedBy) throw new Error(`the server ended the connection (${this.closedBy}) before a whole answer`);
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

/** A refusal that gave up its connection: it said `Connection: close`, then the server ended the connection cleanly (no reset, no hang). */
export async function expectClosedCleanly(conn: RawConnection, answer: RawAnswer): Promise<void> {
  expect(answer.headers.connection, JSON.stringify(answer)).to.equal("close");
  expect(await conn.ended).to.equal("end");
}

/** A refusal that kept its connection: it did not say `Connection: close`, and the next request on the connection is answered. */
export async function expectKept(conn: RawConnection, answer: RawAnswer, next: { path: string; headers: Record<string, string> }): Promise<void> {
  expect(answer.headers.connection, JSON.stringify(answer)).to.equal("keep-alive");
  conn.send("GET", next.path, next.headers);
  expect((await conn.answer()).status).to.equal(200);
}
