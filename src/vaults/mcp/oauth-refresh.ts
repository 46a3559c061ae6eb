/**
 * The refresh grant (RFC 6749 §6) at a credential's token endpoint, through the MCP SDK's own client
 * (`refreshAuthorization`), which applies the client authentication (`none`, `client_secret_basic`,
 * `client_secret_post`) and parses the errors of §5.2. What it says about a failure is only the OAuth
 * error code and the HTTP status: a token endpoint's description or body is not repeated, as nothing
 * guarantees it holds no secret.
 */
import { refreshAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import { InvalidClientError, InvalidGrantError, OAuthError, UnauthorizedClientError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { TokenEndpointAuthType } from "../store/vault-credentials.js";
import { outboundRefusal } from "../../outbound/outbound.js";

export interface RefreshRequest {
  tokenEndpoint: string;
  clientId: string;
  clientSecret: string | null;
  authType: TokenEndpointAuthType;
  refreshToken: string;
  /** The MCP server the token is for: the `resource` of RFC 8707, which the MCP authorization spec requires on token requests. */
  resource: string;
}

export interface RefreshedTokens {
  accessToken: string;
  /** The token endpoint's new refresh token, or the one sent when it issued none (RFC 6749 §6). */
  refreshToken: string;
  expiresAt: Date;
}

/**
 * A refresh that did not give a token. `refused`: the endpoint turned the grant or the client down
 * (`invalid_grant`, `invalid_client`, `unauthorized_client`) and will again until a person reauthorizes;
 * otherwise the failure may pass (the endpoint is down, slow or answered nonsense).
 */
export class RefreshFailed extends Error {
  constructor(
    message: string,
    readonly refused: boolean,
  ) {
    super(message);
  }
}

/** The lifetime assumed for an access token whose response has no `expires_in` (a 401 refreshes it sooner). */
export const ASSUMED_LIFETIME_MS = 3_600_000;
const TIMEOUT_MS = 10_000;

export async function refreshAccessToken(request: RefreshRequest, fetchFn: typeof fetch, now = () => Date.now()): Promise<RefreshedTokens> {
  const endpoint = new URL(request.tokenEndpoint);
  const needsSecret = request.authType !== "none";
  if (needsSecret && !request.clientSecret)
    throw new RefreshFailed(`the token endpoint authentication ${request.authType} needs a client secret, and the credential has none`, true);
  const timed: typeof fetch = (url, init) => fetchFn(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  try {
    const tokens = await refreshAuthorization(endpoint.origin, {
      metadata: {
        issuer: endpoint.origin,
        authorization_endpoint: endpoint.href,
        token_endpoint: endpoint.href,
        response_types_supported: ["code"],
        token_endpoint_auth_methods_supported: [request.authType],
      },
      clientInformation: { client_id: request.clientId, ...(needsSecret ? { client_secret: request.clientSecret! } : {}) },
      refreshToken: request.refreshToken,
      resource: new URL(request.resource),
      fetchFn: timed,
    });
    const lifetime = tokens.expires_in === undefined ? ASSUMED_LIFETIME_MS : tokens.expires_in * 1000;
    return { accessToken: tokens.access_token, refreshToken: tokens.refresh_token ?? request.refreshToken, expiresAt: new Date(now() + lifetime) };
  } catch (err) {
    if (err instanceof InvalidGrantError || err instanceof InvalidClientError || err instanceof UnauthorizedClientError) {
      throw new RefreshFailed(`the token endpoint refused the refresh (${err.errorCode}); the credential needs to be authorized again`, true);
    }
    if (err instanceof OAuthError) throw new RefreshFailed(`the token endpoint failed the refresh (${err.errorCode})`, false);
    const refused = outboundRefusal(err);
    if (refused) throw new RefreshFailed(`the token endpoint is not reachable from this service: ${refused.message}`, false);
    const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    throw new RefreshFailed(timedOut ? "the token endpoint did not answer in time" : "the token endpoint could not be reached", false);
  }
}
