/**
 * The token side of the OAuth test MCP server: access tokens that expire, refresh tokens that rotate,
 * and a token endpoint for the refresh grant of RFC 6749 §6 with one client and one authentication method.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TokenState } from "./mcp-tools.js";
import { secret } from "./secrets.js";

export type TokenEndpointAuth = "none" | "client_secret_basic" | "client_secret_post";

export interface OAuthServerOptions {
  accessTokenTtlMs: number;
  clientId: string;
  /** Required unless `tokenEndpointAuth` is "none". */
  clientSecret?: string;
  tokenEndpointAuth: TokenEndpointAuth;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const MAX_BODY_BYTES = 64 * 1024;

/** Every token issued is a secret the suite's scans look for, so a rotated one leaking is caught too. */
const newToken = (prefix: string) => secret(`${prefix}_${randomBytes(16).toString("hex")}`);

/** `application/x-www-form-urlencoded` decoding (RFC 6749 Appendix B), undefined when malformed. */
function formDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return undefined;
  }
}

/** The client id and secret of an `Authorization: Basic` header (RFC 6749 §2.3.1), each form-decoded. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = header === undefined ? null : /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header);
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  const id = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  return id === undefined || secret === undefined ? undefined : { id, secret };
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buf.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export class TokenIssuer {
  /** Requests the token endpoint received, refused ones included. */
  refreshCalls = 0;
  private readonly options: OAuthServerOptions;
  /** Access token → expiry (epoch ms); expired ones stay, so they are told apart from unknown ones. */
  private readonly accessTokens = new Map<string, number>();
  /** Refresh tokens not yet used: a refresh consumes its token and hands out a new one. */
  private readonly refreshTokens = new Set<string>();

  constructor(options: OAuthServerOptions) {
    if (options.tokenEndpointAuth !== "none" && options.clientSecret === undefined) {
      throw new Error(`${options.tokenEndpointAuth} needs a clientSecret`);
    }
    this.options = options;
  }

  /** A new token pair, as if the client had just completed an authorization. */
  issue(): TokenPair {
    const pair = { accessToken: newToken("at"), refreshToken: newToken("rt"), expiresAt: Date.now() + this.options.accessTokenTtlMs };
    this.accessTokens.set(pair.accessToken, pair.expiresAt);
    this.refreshTokens.add(pair.refreshToken);
    return pair;
  }

  /** Every access token issued so far expires now (the refresh tokens stay usable). */
  expireAccessTokens(): void {
    const now = Date.now();
    for (const token of this.accessTokens.keys()) this.accessTokens.set(token, now);
  }

  check(token: string): TokenState {
    const expiresAt = this.accessTokens.get(token);
    if (expiresAt === undefined) return "unknown";
    return Date.now() < expiresAt ? "valid" : "expired";
  }

  /** `POST /token`: RFC 6749 §6 with the errors of §5.2. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.refreshCalls++;
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const contentType = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
    const body = await readBody(req);
    if (contentType !== "application/x-www-form-urlencoded" || body === undefined) {
      return this.error(res, 400, "invalid_request", "the body must be application/x-www-form-urlencoded");
    }
    const form = new URLSearchParams(body);
    if (!this.authenticates(req.headers.authorization, form)) {
      // §5.2: a client that tried the Authorization header gets a 401 with a challenge for it.
      const challenge: Record<string, string> =
        this.options.tokenEndpointAuth === "client_secret_basic" || req.headers.authorization !== undefined
          ? { "www-authenticate": 'Basic realm="token"' }
          : {};
      return this.error(res, 401, "invalid_client", `client authentication failed (expected ${this.options.tokenEndpointAuth})`, challenge);
    }
    if (form.get("grant_type") !== "refresh_token") return this.error(res, 400, "unsupported_grant_type", "only refresh_token is supported");
    const refreshToken = form.get("refresh_token");
    if (!refreshToken) return this.error(res, 400, "invalid_request", "refresh_token is missing");
    if (!this.refreshTokens.delete(refreshToken)) return this.error(res, 400, "invalid_grant", "the refresh token is unknown or already used");
    const pair = this.issue();
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store", pragma: "no-cache" }).end(
      JSON.stringify({
        access_token: pair.accessToken,
        token_type: "Bearer",
        // Whole seconds, as clients expect; the server itself expires the token at exactly accessTokenTtlMs.
        expires_in: Math.ceil(this.options.accessTokenTtlMs / 1000),
        refresh_token: pair.refreshToken,
      }),
    );
  }

  /**
   * Exactly the chosen method (RFC 6749 §2.3: a client uses one): basic has the secret in the header
   * only, post has id and secret in the form only, none has the id in the form and no secret.
   */
  private authenticates(header: string | undefined, form: URLSearchParams): boolean {
    const { clientId, clientSecret, tokenEndpointAuth } = this.options;
    switch (tokenEndpointAuth) {
      case "client_secret_basic": {
        const creds = basicCredentials(header);
        const formId = form.get("client_id");
        return creds?.id === clientId && creds.secret === clientSecret && !form.has("client_secret") && (formId === null || formId === clientId);
      }
      case "client_secret_post":
        return header === undefined && form.get("client_id") === clientId && form.get("client_secret") === clientSecret;
      case "none":
        return header === undefined && form.get("client_id") === clientId && !form.has("client_secret");
    }
  }

  private error(res: ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
    res
      .writeHead(status, { "content-type": "application/json", "cache-control": "no-store", pragma: "no-cache", ...headers })
      .end(JSON.stringify({ error, error_description: description }));
  }
}
