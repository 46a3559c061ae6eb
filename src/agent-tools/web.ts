/**
 * The `web` toolset: `web_search` through the search backend the operator configured (a SearXNG
 * instance's JSON API), and `web_extract`, which reads pages as text. Pages are fetched through the
 * outbound guard (their URLs come from the model, so from anyone who can talk to it), each bounded in
 * time and size; HTML becomes text with `html-to-text`.
 */
import { convert } from "html-to-text";
import { outboundRefusal } from "../outbound/outbound.js";

export interface WebSearchBackend {
  provider: "searxng";
  /** The instance's base URL; `/search?format=json` is requested under it. */
  url: string;
}

export interface WebOutcome {
  ok: boolean;
  text: string;
}

export const MAX_URLS = 5;
export const MAX_RESULTS = 20;
/** Bytes of a page read at most; the rest is not downloaded. */
const MAX_PAGE_BYTES = 2 * 1024 * 1024;
/** Characters of one page's text given to the model, and of the whole answer. */
const MAX_PAGE_CHARS = 20_000;
const MAX_TOTAL_CHARS = 60_000;
const FETCH_TIMEOUT_MS = 15_000;
const TEXT_TYPES = /^(text\/|application\/(json|xml|xhtml\+xml|ld\+json)\b)/i;

const HTML_OPTIONS = {
  wordwrap: false as const,
  selectors: [
    { selector: "a", options: { ignoreHref: true } },
    { selector: "img", format: "skip" },
    { selector: "h1", options: { uppercase: false } },
    { selector: "h2", options: { uppercase: false } },
    { selector: "h3", options: { uppercase: false } },
    { selector: "table", format: "dataTable" },
  ],
};

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}\n[cut: ${text.length} characters in all]` : text);

/** The body's first bytes, at most about `max` of them (the download stops there), and whether there was more. */
export async function boundedBytes(res: Response, max: number, signal: AbortSignal): Promise<{ bytes: Buffer; truncated: boolean }> {
  if (!res.body) return { bytes: Buffer.alloc(0), truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  try {
    while (size < max && !signal.aborted) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks), truncated: false };
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return { bytes: Buffer.concat(chunks), truncated: true };
}

/** The body as text, at most `max` bytes of it (the download stops there). */
async function boundedText(res: Response, max: number, signal: AbortSignal): Promise<{ text: string; truncated: boolean }> {
  const { bytes, truncated } = await boundedBytes(res, max, signal);
  return { text: truncated ? bytes.toString("utf8").slice(0, max) : bytes.toString("utf8"), truncated };
}

export class WebTools {
  constructor(
    /** Requests to pages: the outbound guard. */
    private readonly pages: typeof fetch,
    private readonly search: WebSearchBackend | undefined,
    /** Requests to the search backend, which the operator configured (it may live on a private network). */
    private readonly backend: typeof fetch = fetch,
  ) {}

  /** Whether `web_search` can run here: without a backend it is left out of the model's tools. */
  get canSearch(): boolean {
    return this.search !== undefined;
  }

  async webSearch(query: string, limit: number, signal: AbortSignal): Promise<WebOutcome> {
    if (!this.search) return { ok: false, text: "web_search is not available: no search backend is configured (WEB_SEARCH_PROVIDER)" };
    const url = new URL("search", this.search.url.endsWith("/") ? this.search.url : `${this.search.url}/`);
    url.search = new URLSearchParams({ q: query, format: "json" }).toString();
    try {
      const res = await this.backend(url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.any([signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]),
      });
      if (!res.ok) return { ok: false, text: `the search backend answered HTTP ${res.status}` };
      const body = (await res.json()) as { results?: unknown };
      const results = (Array.isArray(body.results) ? body.results : [])
        .filter(
          (r): r is { url: unknown; title?: unknown; content?: unknown } =>
            typeof r === "object" && r !== null && typeof (r as { url?: unknown }).url === "string",
        )
        .slice(0, limit);
      if (results.length === 0) return { ok: true, text: "No results." };
      const lines = results.map(
        (r, i) => `${i + 1}. ${String(r.title ?? r.url).slice(0, 300)}\n   ${String(r.url)}${r.content ? `\n   ${String(r.content).slice(0, 500)}` : ""}`,
      );
      return { ok: true, text: lines.join("\n") };
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      return {
        ok: false,
        text: err instanceof Error && err.name === "TimeoutError" ? "the search backend did not answer in time" : "the search backend could not be reached",
      };
    }
  }

  /** Each page's readable text under its URL; a page that fails says why, and the others still come. */
  async webExtract(urls: string[], signal: AbortSignal): Promise<WebOutcome> {
    const pages = await Promise.all(urls.map((u) => this.page(u, signal)));
    const text = pages.map((p) => `## ${p.url}\n${p.text}`).join("\n\n");
    return { ok: pages.some((p) => p.ok), text: cut(text, MAX_TOTAL_CHARS) };
  }

  private async page(raw: string, signal: AbortSignal): Promise<{ url: string; ok: boolean; text: string }> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { url: raw.slice(0, 200), ok: false, text: "[not a valid absolute URL]" };
    }
    // The URL as shown: no credentials, no fragment; the query stays (it selects the page).
    const shown = `${url.protocol}//${url.host}${url.pathname}${url.search}`.slice(0, 500);
    try {
      const res = await this.pages(url, {
        headers: { accept: "text/html,text/plain;q=0.9,*/*;q=0.5" },
        signal: AbortSignal.any([signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]),
      });
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        return { url: shown, ok: false, text: `[HTTP ${res.status}]` };
      }
      const type = res.headers.get("content-type") ?? "text/html";
      if (!TEXT_TYPES.test(type)) {
        await res.body?.cancel().catch(() => undefined);
        return { url: shown, ok: false, text: `[unsupported content type ${type.split(";")[0]}: only text and HTML pages are read]` };
      }
      const body = await boundedText(res, MAX_PAGE_BYTES, signal);
      const text = /html/i.test(type) ? convert(body.text, HTML_OPTIONS) : body.text;
      return {
        url: shown,
        ok: true,
        text: cut(text.trim() || "[the page has no text]", MAX_PAGE_CHARS) + (body.truncated ? `\n[cut: the page is over ${MAX_PAGE_BYTES} bytes]` : ""),
      };
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      const refused = outboundRefusal(err);
      if (refused) return { url: shown, ok: false, text: `[${refused.message}]` };
      return {
        url: shown,
        ok: false,
        text: err instanceof Error && err.name === "TimeoutError" ? "[the page did not answer in time]" : "[the page could not be fetched]",
      };
    }
  }
}
