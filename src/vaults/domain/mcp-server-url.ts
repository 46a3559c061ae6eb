/**
 * The one rule by which a vault credential's `mcpServerUrl` is matched to an agent's MCP server `url`:
 * two URLs match when their normalized forms are equal. Pure; parsing is the WHATWG `URL` parser's, so
 * this module and every HTTP client agree on what a URL means.
 *
 * Normalization: only `http:` and `https:`; scheme and host lowercased, IDN hosts in punycode, IPv6
 * and numeric IPv4 hosts in canonical form, default ports dropped and dot segments resolved (all by
 * `URL`); the fragment dropped (never sent to a server); trailing slashes of the path removed, so the
 * root path becomes no path at all (`https://x.example/` and `https://x.example` match); the path
 * otherwise kept case-sensitive; the query kept as is (it can select a tenant), an empty `?` dropped.
 * A URL with userinfo (`user:pass@`) is refused: raw credentials must never be in a server URL.
 *
 * All trailing slashes go, not only the last one, so that a normalized URL normalizes to itself: a
 * stored normalized value can be normalized again and still match.
 */

/** Why a URL cannot name an MCP server; short, and never echoing the value (it may hold a secret). */
const PROBLEMS = {
  unparseable: "must be a valid absolute URL",
  scheme: "must be an http or https URL",
  credentials: "must not contain credentials",
} as const;

type Parsed = { ok: true; url: URL } | { ok: false; problem: string };

function parse(raw: string): Parsed {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: PROBLEMS.unparseable };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, problem: PROBLEMS.scheme };
  if (url.username !== "" || url.password !== "") return { ok: false, problem: PROBLEMS.credentials };
  return { ok: true, url };
}

/** The normalized form of an MCP server URL, or null when it cannot name one (see the module comment). */
export function normalizeServerUrl(raw: string): string | null {
  const parsed = parse(raw);
  if (!parsed.ok) return null;
  const { protocol, host, pathname, search } = parsed.url;
  return `${protocol}//${host}${pathname.replace(/\/+$/, "")}${search}`;
}

/** What is wrong with `raw` as an MCP server URL, for a validation error; null when it is fine. */
export function serverUrlProblem(raw: string): string | null {
  const parsed = parse(raw);
  return parsed.ok ? null : parsed.problem;
}
