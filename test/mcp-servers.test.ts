/** The test MCP servers work with the official SDK client, so later tests can trust them. Needs no Redis or MongoDB. */
import { expect } from "chai";
import { refreshAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  FAIL_TEXT,
  startBearerServer,
  startEverythingServer,
  startOAuthServer,
  startSseOnlyServer,
  type OAuthServer,
  type TokenEndpointAuth,
} from "./support/mcp-servers.js";

const TEST_TOOLS = ["add", "echo", "fail", "slow"];

function firstText(result: unknown): string {
  if (typeof result === "object" && result !== null && "content" in result && Array.isArray(result.content)) {
    const [first]: unknown[] = result.content;
    if (typeof first === "object" && first !== null && "text" in first && typeof first.text === "string") return first.text;
  }
  throw new Error(`no text content in ${JSON.stringify(result)}`);
}

async function connect(url: string, authorization?: string): Promise<Client> {
  const client = new Client({ name: "mcp-servers-test", version: "1.0.0" });
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function toolNames(client: Client): Promise<string[]> {
  const { tools } = await client.listTools();
  return tools.map((t) => t.name).sort();
}

/** The HTTP status a failed connect carries. */
async function connectStatus(url: string, authorization?: string): Promise<number | undefined> {
  try {
    const client = await connect(url, authorization);
    await client.close();
  } catch (err) {
    if (err instanceof StreamableHTTPError) return err.code;
    throw err;
  }
  throw new Error("connect succeeded");
}

describe("test MCP servers", () => {
  it("server-everything answers over Streamable HTTP", async () => {
    const server = await startEverythingServer();
    try {
      expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const client = await connect(server.url);
      expect(await toolNames(client)).to.include.members(["echo", "get-sum"]);
      expect(firstText(await client.callTool({ name: "echo", arguments: { message: "hi" } }))).to.equal("Echo: hi");
      await client.close();
    } finally {
      await server.close();
    }
  });

  describe("bearer server", () => {
    it("serves the tools to the right token, and records the header", async () => {
      const server = await startBearerServer({ token: "secret-1" });
      try {
        const client = await connect(server.url, "Bearer secret-1");
        expect(await toolNames(client)).to.deep.equal(TEST_TOOLS);
        expect(firstText(await client.callTool({ name: "echo", arguments: { text: "hello" } }))).to.equal("hello");
        expect(firstText(await client.callTool({ name: "add", arguments: { a: 2, b: 3.5 } }))).to.equal("5.5");
        const failed = await client.callTool({ name: "fail", arguments: {} });
        expect(failed.isError).to.equal(true);
        expect(firstText(failed)).to.equal(FAIL_TEXT);
        expect(firstText(await client.callTool({ name: "slow", arguments: { ms: 50 } }))).to.equal("waited 50 ms");
        await client.close();
        expect(server.auth.refused).to.equal(0);
        expect(server.auth.accepted).to.equal(server.auth.headers.length).and.be.greaterThan(0);
        expect(new Set(server.auth.headers)).to.deep.equal(new Set(["Bearer secret-1"]));
      } finally {
        await server.close();
      }
    });

    it("refuses a wrong token and a missing one with 401", async () => {
      const server = await startBearerServer({ token: "secret-1" });
      try {
        expect(await connectStatus(server.url, "Bearer secret-2")).to.equal(401);
        expect(await connectStatus(server.url)).to.equal(401);
        expect(server.auth).to.deep.equal({ headers: ["Bearer secret-2", undefined], traceparents: [undefined, undefined], accepted: 0, refused: 2 });
        const res = await fetch(server.url, { method: "POST", headers: { authorization: "Bearer nope", "content-type": "application/json" }, body: "{}" });
        expect(res.status).to.equal(401);
        expect(res.headers.get("www-authenticate")).to.include('error="invalid_token"');
      } finally {
        await server.close();
      }
    });
  });

  describe("OAuth server", () => {
    const CLIENT_ID = "client-1";
    const CLIENT_SECRET = "s3cret";

    const refresh = (server: OAuthServer, method: TokenEndpointAuth, refreshToken: string) =>
      refreshAuthorization(new URL(server.tokenUrl).origin, {
        clientInformation: { client_id: CLIENT_ID, client_secret: method === "none" ? undefined : CLIENT_SECRET, token_endpoint_auth_method: method },
        refreshToken,
      });

    /** The refresh request by hand, to see the status and body the SDK's helper hides behind an error class. */
    function rawRefresh(server: OAuthServer, method: TokenEndpointAuth, refreshToken: string): Promise<Response> {
      const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken });
      const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
      if (method === "client_secret_basic") headers.authorization = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`;
      else form.set("client_id", CLIENT_ID);
      if (method === "client_secret_post") form.set("client_secret", CLIENT_SECRET);
      return fetch(server.tokenUrl, { method: "POST", headers, body: form });
    }

    for (const method of ["client_secret_basic", "client_secret_post", "none"] as const) {
      it(`refreshes with ${method}, rotates the refresh token, and refuses it reused`, async () => {
        const server = await startOAuthServer({
          accessTokenTtlMs: 60_000,
          clientId: CLIENT_ID,
          clientSecret: method === "none" ? undefined : CLIENT_SECRET,
          tokenEndpointAuth: method,
        });
        try {
          const first = server.issue();
          const tokens = await refresh(server, method, first.refreshToken);
          expect(server.refreshCalls).to.equal(1);
          expect(tokens.token_type).to.equal("Bearer");
          expect(tokens.expires_in).to.equal(60);
          expect(tokens.access_token).to.not.equal(first.accessToken);
          expect(tokens.refresh_token).to.not.equal(first.refreshToken);

          const client = await connect(server.url, `Bearer ${tokens.access_token}`);
          expect(firstText(await client.callTool({ name: "echo", arguments: { text: "after refresh" } }))).to.equal("after refresh");
          await client.close();

          const reused = await rawRefresh(server, method, first.refreshToken);
          expect(reused.status).to.equal(400);
          expect(await reused.json()).to.have.property("error", "invalid_grant");
          expect(server.refreshCalls).to.equal(2);
        } finally {
          await server.close();
        }
      });
    }

    it("refuses the wrong client authentication method with invalid_client", async () => {
      const server = await startOAuthServer({
        accessTokenTtlMs: 60_000,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        tokenEndpointAuth: "client_secret_basic",
      });
      try {
        const { refreshToken } = server.issue();
        const res = await rawRefresh(server, "client_secret_post", refreshToken);
        expect(res.status).to.equal(401);
        expect(await res.json()).to.have.property("error", "invalid_client");
        // The refused request did not use up the refresh token.
        expect((await refresh(server, "client_secret_basic", refreshToken)).access_token).to.be.a("string");
      } finally {
        await server.close();
      }
    });

    it("refuses an expired access token with invalid_token, and serves the refreshed one", async () => {
      const server = await startOAuthServer({ accessTokenTtlMs: 60_000, clientId: CLIENT_ID, tokenEndpointAuth: "none" });
      try {
        const pair = server.issue();
        expect(pair.expiresAt).to.be.closeTo(Date.now() + 60_000, 1_000);
        const client = await connect(server.url, `Bearer ${pair.accessToken}`);
        expect(await toolNames(client)).to.deep.equal(TEST_TOOLS);
        server.expireAccessTokens();
        const err = await client.listTools().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).to.be.instanceOf(StreamableHTTPError).with.property("code", 401);
        await client.close();

        const res = await fetch(server.url, {
          method: "POST",
          headers: { authorization: `Bearer ${pair.accessToken}`, "content-type": "application/json" },
          body: "{}",
        });
        expect(res.status).to.equal(401);
        expect(res.headers.get("www-authenticate")).to.include('error="invalid_token"');

        const tokens = await refresh(server, "none", pair.refreshToken);
        const again = await connect(server.url, `Bearer ${tokens.access_token}`);
        expect(firstText(await again.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).to.equal("3");
        await again.close();
      } finally {
        await server.close();
      }
    });

    it("expires an access token on its own after accessTokenTtlMs", async () => {
      const server = await startOAuthServer({ accessTokenTtlMs: 200, clientId: CLIENT_ID, tokenEndpointAuth: "none" });
      try {
        const { accessToken } = server.issue();
        const client = await connect(server.url, `Bearer ${accessToken}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
        expect(await connectStatus(server.url, `Bearer ${accessToken}`)).to.equal(401);
        await client.close();
      } finally {
        await server.close();
      }
    });
  });

  it("the SSE-only server answers over the legacy SSE transport, and refuses Streamable HTTP", async () => {
    const server = await startSseOnlyServer();
    try {
      expect(await connectStatus(server.url)).to.equal(405);
      const client = new Client({ name: "mcp-servers-test", version: "1.0.0" });
      await client.connect(new SSEClientTransport(new URL(server.url)));
      expect(await toolNames(client)).to.deep.equal(TEST_TOOLS);
      expect(firstText(await client.callTool({ name: "echo", arguments: { text: "over sse" } }))).to.equal("over sse");
      await client.close();
    } finally {
      await server.close();
    }
  });

  it("a slow call still running when the server closes does not hold the close", async () => {
    const server = await startBearerServer({ token: "t" });
    const client = await connect(server.url, "Bearer t");
    // The SDK client does not fail a request whose response stream is cut (it only reports the stream
    // error to onerror): the request's own timeout is what ends it.
    const call = client.callTool({ name: "slow", arguments: { ms: 60_000 } }, undefined, { timeout: 1_000 }).catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).to.be.lessThan(1_000);
    expect(await call).to.be.instanceOf(Error);
    await client.close();
  });
});
