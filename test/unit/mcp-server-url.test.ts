import { expect } from "chai";
import { normalizeServerUrl, serverUrlProblem } from "../../src/vaults/domain/mcp-server-url.js";

/** Asserts every URL in `raws` normalizes to `expected`. */
function allNormalizeTo(raws: string[], expected: string): void {
  for (const raw of raws) expect(normalizeServerUrl(raw), raw).to.equal(expected);
}

/** Vault credentials are matched to an agent's MCP servers by this normalized form (pure). */
describe("MCP server URL: normalization for credential matching (pure)", () => {
  it("the root path becomes no path at all, with or without a trailing slash", () => {
    allNormalizeTo(["https://x.example", "https://x.example/", "https://x.example//"], "https://x.example");
  });

  it("a trailing slash of a path is removed; the path is otherwise kept", () => {
    allNormalizeTo(["https://x.example/mcp", "https://x.example/mcp/", "https://x.example/mcp//"], "https://x.example/mcp");
    expect(normalizeServerUrl("https://x.example/a/b/")).to.equal("https://x.example/a/b");
    expect(normalizeServerUrl("https://x.example/a//b")).to.equal("https://x.example/a//b");
  });

  it("the path stays case-sensitive; scheme and host are lowercased", () => {
    expect(normalizeServerUrl("HTTPS://X.Example/MCP")).to.equal("https://x.example/MCP");
    expect(normalizeServerUrl("https://x.example/MCP")).to.not.equal(normalizeServerUrl("https://x.example/mcp"));
  });

  it("a default port is dropped, any other port kept", () => {
    allNormalizeTo(["https://x.example:443/mcp", "https://x.example/mcp"], "https://x.example/mcp");
    allNormalizeTo(["http://x.example:80/mcp", "http://x.example/mcp"], "http://x.example/mcp");
    expect(normalizeServerUrl("https://x.example:8443/mcp")).to.equal("https://x.example:8443/mcp");
    expect(normalizeServerUrl("http://x.example:443/")).to.equal("http://x.example:443");
    expect(normalizeServerUrl("https://x.example:80/")).to.equal("https://x.example:80");
  });

  it("http and https are different servers", () => {
    expect(normalizeServerUrl("http://x.example")).to.not.equal(normalizeServerUrl("https://x.example"));
  });

  it("the query is kept as is (it can select a tenant); an empty `?` is dropped", () => {
    expect(normalizeServerUrl("https://x.example/mcp?tenant=A&b=2")).to.equal("https://x.example/mcp?tenant=A&b=2");
    expect(normalizeServerUrl("https://x.example/mcp/?tenant=A")).to.equal("https://x.example/mcp?tenant=A");
    expect(normalizeServerUrl("https://x.example/?tenant=A")).to.equal("https://x.example?tenant=A");
    expect(normalizeServerUrl("https://x.example/mcp?tenant=A")).to.not.equal(normalizeServerUrl("https://x.example/mcp?tenant=a"));
    expect(normalizeServerUrl("https://x.example/mcp?b=2&a=1")).to.not.equal(normalizeServerUrl("https://x.example/mcp?a=1&b=2"));
    allNormalizeTo(["https://x.example/mcp?", "https://x.example/mcp/?"], "https://x.example/mcp");
  });

  it("the fragment is dropped, empty or not", () => {
    allNormalizeTo(["https://x.example/mcp#frag", "https://x.example/mcp#", "https://x.example/mcp/?#x"], "https://x.example/mcp");
    expect(normalizeServerUrl("https://x.example/mcp?a=1#frag")).to.equal("https://x.example/mcp?a=1");
  });

  it("userinfo is refused: raw credentials must never be in a server URL", () => {
    for (const raw of ["https://user:pass@x.example/mcp", "https://user@x.example", "https://:secret@x.example"]) {
      expect(normalizeServerUrl(raw), raw).to.equal(null);
      expect(serverUrlProblem(raw), raw).to.equal("must not contain credentials");
    }
  });

  it("an empty userinfo marker carries no credential and is harmless", () => {
    allNormalizeTo(["https://@x.example/mcp", "https://:@x.example/mcp"], "https://x.example/mcp");
  });

  it("schemes other than http and https are refused", () => {
    for (const raw of [
      "ftp://x.example/mcp",
      "javascript:alert(1)",
      "file:///etc/passwd",
      "ws://x.example/mcp",
      "wss://x.example",
      "data:text/plain,hi",
      "mailto:a@x.example",
    ]) {
      expect(normalizeServerUrl(raw), raw).to.equal(null);
      expect(serverUrlProblem(raw), raw).to.equal("must be an http or https URL");
    }
  });

  it("garbage, relative and empty input is refused", () => {
    for (const raw of [
      "",
      "   ",
      "not a url",
      "x.example/mcp",
      "/mcp",
      "//x.example/mcp",
      "https://",
      "http://x.example:99999",
      "https://x.example:port",
      "http://[::1/",
    ]) {
      expect(normalizeServerUrl(raw), raw).to.equal(null);
      expect(serverUrlProblem(raw), raw).to.equal("must be a valid absolute URL");
    }
  });

  it("problems never echo the value", () => {
    const raw = "https://user:hunter2-secret@x.example/mcp";
    expect(serverUrlProblem(raw)).to.not.include("hunter2");
    expect(serverUrlProblem("ftp://hunter2.example")).to.not.include("hunter2");
  });

  it("a fine URL has no problem", () => {
    for (const raw of ["https://x.example", "http://localhost:3000/mcp", "https://[::1]/mcp", "HTTPS://X.EXAMPLE/?q"])
      expect(serverUrlProblem(raw), raw).to.equal(null);
  });

  it("IPv6 hosts keep their brackets and come out in canonical form", () => {
    allNormalizeTo(["http://[0:0:0:0:0:0:0:1]:8080/mcp/", "http://[::1]:8080/mcp"], "http://[::1]:8080/mcp");
    allNormalizeTo(["https://[2001:DB8::1]:443/"], "https://[2001:db8::1]");
  });

  it("IPv4 hosts come out as URL gives them", () => {
    allNormalizeTo(["http://127.0.0.1:80/mcp", "http://0x7f.1/mcp"], "http://127.0.0.1/mcp");
  });

  it("IDN hosts come out in punycode, so both spellings match", () => {
    allNormalizeTo(["https://bücher.example/mcp", "https://BÜCHER.example/mcp/", "https://xn--bcher-kva.example/mcp"], "https://xn--bcher-kva.example/mcp");
  });

  it("dot segments are resolved and surrounding whitespace ignored, as URL does", () => {
    allNormalizeTo(["https://x.example/a/../mcp", "https://x.example/./mcp/.", "  https://x.example/mcp\n"], "https://x.example/mcp");
  });

  it("a normalized URL normalizes to itself", () => {
    const raws = [
      "HTTPS://X.Example:443/",
      "https://x.example/mcp//?",
      "https://x.example/?tenant=A#f",
      "http://[0::1]:8080/a/",
      "https://bücher.example/MCP/",
    ];
    for (const raw of raws) {
      const once = normalizeServerUrl(raw);
      expect(once, raw).to.be.a("string");
      expect(normalizeServerUrl(once!), raw).to.equal(once);
    }
  });
});
