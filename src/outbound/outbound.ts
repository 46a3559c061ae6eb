/**
 * The service's `fetch` for user-supplied URLs (MCP servers, OAuth token endpoints, web pages): every
 * hop is checked by an OutboundPolicy, and the socket connects only to an address the policy checked.
 *
 * Why undici and not the global fetch: the check must happen where the connection is made. A check
 * before `fetch` resolves the name once and the connection resolves it again, so a DNS answer that
 * changes in between (rebinding) would reach a private address. undici's Agent takes the socket's
 * `lookup`, so the resolution that is checked is the one that is connected to. `net.connect` skips
 * `lookup` for IP literals, which is why every URL is also checked before its request is sent.
 * What an answer may make us hold is bounded (`bounded-body.ts`).
 */
import type { LookupAddress, LookupOptions } from "node:dns";
import type { LookupFunction } from "node:net";
import { Agent, fetch as undiciFetch } from "undici";
import { boundedBody } from "./bounded-body.js";
import { isOutboundRefused, OutboundPolicy, type OutboundRefused, type ResolvedAddress } from "./outbound-policy.js";

export { isOutboundRefused, OutboundPolicy, OutboundRefused, type Resolve, type ResolvedAddress } from "./outbound-policy.js";

/** The standard `fetch` signature (what the MCP SDK's transports take as their `fetch` option). */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A guarded fetch; `close()` ends its pooled connections (at shutdown, or at the end of a test). */
export type GuardedFetch = Fetch & { close(): Promise<void> };

/** Redirects followed at most; the next one fails (fetch follows 20, more than any API needs). */
export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers fetch drops when a redirect turns the request into a GET without a body. */
const BODY_HEADERS = ["content-encoding", "content-language", "content-location", "content-type", "content-length"];
/** Headers not carried to another origin: fetch drops Authorization, undici also these two. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/** One request on the way: what is sent to `url`. `replayable` says the body can be sent again. */
interface Hop {
  url: URL;
  method: string;
  headers: Headers;
  body: Uint8Array | ReadableStream<Uint8Array> | null;
  replayable: boolean;
}

type LookupCallback = Parameters<LookupFunction>[2];

/** Answers a socket's lookup with `all`, the addresses the policy checked, as `options` asks for them. */
function answerLookup(hostname: string, all: ResolvedAddress[], options: LookupOptions, callback: LookupCallback): void {
  const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family;
  const addresses: LookupAddress[] = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
  const first = addresses[0];
  if (first === undefined) callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "", 0);
  else if (options.all === true) callback(null, addresses);
  else callback(null, first.address, first.family);
}

/** The socket's lookup: resolve, refuse when any address is refused, hand the checked ones to connect. */
function checkedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    policy.resolveChecked(hostname).then(
      (all: ResolvedAddress[]) => answerLookup(hostname, all, options, callback),
      (err: Error) => callback(err, "", 0),
    );
  };
}

/** A socket's lookup that answers only `checked`, addresses the policy already resolved and checked: nothing is resolved twice. */
export function pinnedLookup(checked: ResolvedAddress[]): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => answerLookup(hostname, checked, options, callback);
}

/**
 * The guard's refusal behind an error, if it is one: undici reports a failed connection as
 * TypeError("fetch failed") with the reason as its cause, and a caller may wrap it again.
 */
export function outboundRefusal(err: unknown): OutboundRefused | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (isOutboundRefused(e)) return e;
  }
  return undefined;
}

/** The URL to check; a parse failure is reported without the text (URL's own error carries it as `input`). */
function urlOf(input: string | URL | Request): URL {
  if (input instanceof URL) return input;
  try {
    return new URL(typeof input === "string" ? input : input.url);
  } catch {
    throw new TypeError("fetch failed: invalid URL");
  }
}

/**
 * The first hop, normalized by the platform's own Request (headers, method, body extraction and its
 * content type, exactly as fetch does). A body given as a stream is sent as one, so it cannot be sent
 * again to a redirect that keeps the body (307, 308; fetch fails there too); any other body is read
 * once into bytes, which can.
 */
async function firstHop(url: URL, input: string | URL | Request, init: RequestInit | undefined): Promise<{ hop: Hop; request: Request }> {
  const request = new Request(typeof input === "object" && !(input instanceof URL) ? input : url.href, init);
  const streamed = init?.body instanceof ReadableStream;
  let body: Hop["body"] = request.body;
  if (body !== null && !streamed) body = new Uint8Array(await request.arrayBuffer());
  return { request, hop: { url, method: request.method, headers: new Headers(request.headers), body, replayable: !streamed } };
}

/** The request a redirect asks for, as fetch's HTTP-redirect step makes it. */
function redirected(hop: Hop, status: number, next: URL): Hop {
  const headers = new Headers(hop.headers);
  if (next.origin !== hop.url.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
  if (((status === 301 || status === 302) && hop.method === "POST") || (status === 303 && hop.method !== "GET" && hop.method !== "HEAD")) {
    for (const name of BODY_HEADERS) headers.delete(name);
    return { url: next, method: "GET", headers, body: null, replayable: true };
  }
  if (hop.body !== null && !hop.replayable) throw new TypeError("fetch failed: a streamed request body cannot follow a redirect");
  return { ...hop, url: next, headers };
}

/** The answer as the platform's own Response (streamed through, not buffered, and bounded), with its final URL. */
function platformResponse(response: Awaited<ReturnType<typeof undiciFetch>>, url: URL, wasRedirected: boolean): Response {
  const eventStream = /^text\/event-stream\b/i.test(response.headers.get("content-type") ?? "");
  const body = response.body && boundedBody(response.body as ReadableStream<Uint8Array>, eventStream, url.hostname);
  const out = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers],
  });
  // The constructor cannot set these; callers resolve relative links against `url`.
  Object.defineProperties(out, { url: { value: url.href }, redirected: { value: wasRedirected } });
  return out;
}

/**
 * A fetch that reaches only what `policy` permits: each hop's URL is checked (scheme, credentials,
 * IP literal), host names are resolved and checked by the connection itself, redirects are followed
 * here (at most MAX_REDIRECTS, each hop checked) unless the caller asked for `redirect: "manual"` or
 * `"error"`. A refusal rejects with OutboundRefused; other failures reject as fetch's do.
 */
export function guardedFetch(policy: OutboundPolicy): GuardedFetch {
  const agent = new Agent({ connect: { lookup: checkedLookup(policy) } });

  const send = async (hop: Hop, signal: AbortSignal) => {
    try {
      return await undiciFetch(hop.url.href, {
        method: hop.method,
        headers: [...hop.headers],
        body: hop.body,
        ...(hop.body instanceof ReadableStream ? { duplex: "half" as const } : {}),
        redirect: "manual",
        signal,
        dispatcher: agent,
      });
    } catch (err) {
      throw outboundRefusal(err) ?? err;
    }
  };

  const guarded: Fetch = async (input, init) => {
    const url = urlOf(input);
    // Before anything else: a Request built from a URL with credentials would name them in its error.
    policy.checkUrl(url);
    const { hop: first, request } = await firstHop(url, input, init);
    // The caller's own signal, not `request.signal`: a Request follows it only weakly (nodejs/node#55428),
    // so once `request` is collected, aborting would no longer end a response still streaming.
    const signal = init?.signal ?? (input instanceof Request ? input.signal : request.signal);
    let hop = first;
    for (let hops = 0; ; hops++) {
      const response = await send(hop, signal);
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || request.redirect === "manual" || (location === null && request.redirect === "follow")) {
        return platformResponse(response, hop.url, hops > 0);
      }
      await response.body?.cancel();
      if (request.redirect === "error") throw new TypeError('fetch failed: redirected while redirect is "error"');
      if (hops === MAX_REDIRECTS) throw new TypeError(`fetch failed: more than ${MAX_REDIRECTS} redirects (the last from ${hop.url.hostname})`);
      let next: URL;
      try {
        next = new URL(location ?? "", hop.url);
      } catch {
        throw new TypeError(`fetch failed: ${hop.url.hostname} redirected to an invalid location`);
      }
      policy.checkUrl(next);
      hop = redirected(hop, response.status, next);
    }
  };

  return Object.assign(guarded, { close: () => agent.close() });
}
