import { expect } from "chai";
import {
  connectionStatuses,
  credentialStatus,
  isExpired,
  matchCredential,
  type CredentialFacts,
  type McpServerRef,
} from "../../src/vaults/domain/mcp-connection-status.js";

const now = new Date("2025-06-01T12:00:00.000Z");
const nowIso = now.toISOString();
const later = "2025-06-01T12:00:00.001Z";
const earlier = "2025-06-01T11:59:59.999Z";

const URL_A = "https://a.example/mcp";

/** A usable static bearer credential for `URL_A`, with `over` applied. */
function cred(over: Partial<CredentialFacts> = {}): CredentialFacts {
  return {
    id: "cred_1",
    vaultId: "vlt_1",
    mcpServerUrl: URL_A,
    authType: "static_bearer",
    expiresAt: null,
    refreshable: false,
    readable: true,
    invalid: false,
    ...over,
  };
}

/** A usable OAuth credential for `URL_A` whose token expires at `expiresAt`. */
function oauth(expiresAt: string | null, over: Partial<CredentialFacts> = {}): CredentialFacts {
  return cred({ authType: "mcp_oauth", expiresAt, refreshable: true, ...over });
}

/** The status of a single server at `URL_A` given `credentials`. */
function statusOf(credentials: CredentialFacts[]): string {
  return connectionStatuses([{ name: "a", url: URL_A }], credentials, now)[0]!.status;
}

/** Which credential the run time sends to a server, and the status shown for it (pure). */
describe("MCP connection status: credential matching", () => {
  it("matches by normalized URL, not by string", () => {
    const c = cred({ mcpServerUrl: "HTTPS://A.Example:443/mcp/#x" });
    expect(matchCredential(URL_A, [c])).to.deep.equal({ kind: "one", credential: c });
    expect(matchCredential("https://a.example/mcp/", [cred()])).to.deep.equal({ kind: "one", credential: cred() });
  });

  it("a different path, path case, query, port or scheme does not match", () => {
    for (const url of [
      "https://a.example/MCP",
      "https://a.example/mcp?tenant=1",
      "https://a.example:8443/mcp",
      "http://a.example/mcp",
      "https://a.example",
      "https://b.example/mcp",
    ]) {
      expect(matchCredential(url, [cred()]), url).to.deep.equal({ kind: "none" });
    }
  });

  it("no credentials match nothing", () => {
    expect(matchCredential(URL_A, [])).to.deep.equal({ kind: "none" });
  });

  it("a server URL that does not normalize matches nothing, not even an identical credential URL", () => {
    for (const url of ["ftp://a.example/mcp", "https://u:p@a.example/mcp", "garbage", ""]) {
      expect(matchCredential(url, [cred({ mcpServerUrl: url })]), url).to.deep.equal({ kind: "none" });
    }
  });

  it("a credential URL that does not normalize matches nothing", () => {
    expect(matchCredential(URL_A, [cred({ mcpServerUrl: "https://u:p@a.example/mcp" })])).to.deep.equal({ kind: "none" });
  });

  it("several matches name every matching id, in the order given, and none other", () => {
    const list = [
      cred({ id: "c1" }),
      cred({ id: "c2", mcpServerUrl: "https://b.example" }),
      cred({ id: "c3", vaultId: "vlt_2", mcpServerUrl: "https://a.example/mcp/" }),
    ];
    expect(matchCredential(URL_A, list)).to.deep.equal({ kind: "many", ids: ["c1", "c3"] });
  });
});

describe("MCP connection status: OAuth expiry", () => {
  it("a token expiring exactly now is expired; a millisecond later it is not", () => {
    expect(isExpired(oauth(nowIso), now)).to.equal(true);
    expect(isExpired(oauth(earlier), now)).to.equal(true);
    expect(isExpired(oauth(later), now)).to.equal(false);
  });

  it("other ISO spellings of the same instant are compared as instants", () => {
    expect(isExpired(oauth("2025-06-01T14:00:00+02:00"), now)).to.equal(true);
    expect(isExpired(oauth("2025-06-01T14:00:01+02:00"), now)).to.equal(false);
  });

  it("no expiry is not expired; an expiry that is not a date is", () => {
    expect(isExpired(oauth(null), now)).to.equal(false);
    expect(isExpired(oauth("soon"), now)).to.equal(true);
  });

  it("a static bearer never expires, whatever expiresAt says", () => {
    expect(isExpired(cred({ expiresAt: earlier }), now)).to.equal(false);
  });
});

describe("MCP connection status: one status per server", () => {
  it("public: no credential matches", () => {
    expect(statusOf([])).to.equal("public");
    expect(statusOf([cred({ mcpServerUrl: "https://b.example/mcp" })])).to.equal("public");
  });

  it("connected: one usable static bearer or unexpired OAuth credential", () => {
    expect(statusOf([cred()])).to.equal("connected");
    expect(statusOf([oauth(later, { refreshable: false })])).to.equal("connected");
    expect(statusOf([oauth(null, { refreshable: false })])).to.equal("connected");
  });

  it("connected: an expired OAuth token that can be refreshed (it is refreshed when the request runs)", () => {
    expect(statusOf([oauth(nowIso, { refreshable: true })])).to.equal("connected");
    expect(statusOf([oauth(earlier, { refreshable: true })])).to.equal("connected");
  });

  it("reconnect: an OAuth token expired (exactly now or before) that cannot be refreshed", () => {
    expect(statusOf([oauth(nowIso, { refreshable: false })])).to.equal("reconnect");
    expect(statusOf([oauth(earlier, { refreshable: false })])).to.equal("reconnect");
    expect(statusOf([oauth("not a date", { refreshable: false })])).to.equal("reconnect");
  });

  it("reconnect: a refresh was refused, even when the token has not expired yet", () => {
    expect(statusOf([oauth(later, { invalid: true })])).to.equal("reconnect");
    expect(statusOf([oauth(earlier, { invalid: true })])).to.equal("reconnect");
  });

  it("unavailable: the one match is not readable here, before any other state", () => {
    expect(statusOf([cred({ readable: false })])).to.equal("unavailable");
    expect(statusOf([oauth(earlier, { readable: false, refreshable: false, invalid: true })])).to.equal("unavailable");
  });

  it("conflict: two or more matches, whatever their state", () => {
    const usable = cred({ id: "c1" });
    for (const other of [
      cred({ id: "c2" }),
      oauth(earlier, { id: "c2", refreshable: false }),
      cred({ id: "c2", readable: false }),
      oauth(later, { id: "c2", invalid: true }),
    ]) {
      expect(statusOf([usable, other]), other.id).to.equal("conflict");
    }
    expect(statusOf([cred({ id: "c1", readable: false }), cred({ id: "c2", readable: false }), cred({ id: "c3", vaultId: "vlt_2" })])).to.equal("conflict");
  });

  it("credentialStatus agrees with the table for a single match", () => {
    expect(credentialStatus(cred(), now)).to.equal("connected");
    expect(credentialStatus(cred({ readable: false }), now)).to.equal("unavailable");
    expect(credentialStatus(oauth(nowIso, { refreshable: false }), now)).to.equal("reconnect");
  });
});

describe("MCP connection status: the agent's server list", () => {
  const servers: McpServerRef[] = [
    { name: "pub", url: "https://public.example/mcp" },
    { name: "ok", url: "https://A.example/mcp/" },
    { name: "two", url: "https://two.example" },
    { name: "bad", url: "ftp://a.example/mcp" },
    { name: "stale", url: "https://stale.example/mcp" },
    { name: "locked", url: "https://locked.example/mcp" },
  ];
  const credentials: CredentialFacts[] = [
    cred({ id: "c_ok" }),
    cred({ id: "c_two_1", mcpServerUrl: "https://two.example/" }),
    cred({ id: "c_two_2", vaultId: "vlt_2", mcpServerUrl: "https://TWO.example" }),
    oauth(earlier, { id: "c_stale", mcpServerUrl: "https://stale.example/mcp", refreshable: false }),
    cred({ id: "c_locked", mcpServerUrl: "https://locked.example/mcp", readable: false }),
  ];

  it("gives each server its status in server order, with the credential when exactly one matched", () => {
    expect(connectionStatuses(servers, credentials, now)).to.deep.equal([
      { serverName: "pub", url: "https://public.example/mcp", status: "public", credentialId: null },
      { serverName: "ok", url: "https://A.example/mcp/", status: "connected", credentialId: "c_ok" },
      { serverName: "two", url: "https://two.example", status: "conflict", credentialId: null },
      { serverName: "bad", url: "ftp://a.example/mcp", status: "public", credentialId: null },
      { serverName: "stale", url: "https://stale.example/mcp", status: "reconnect", credentialId: "c_stale" },
      { serverName: "locked", url: "https://locked.example/mcp", status: "unavailable", credentialId: "c_locked" },
    ]);
  });

  it("no servers give no statuses", () => {
    expect(connectionStatuses([], credentials, now)).to.deep.equal([]);
  });

  it("one credential can serve two servers with the same normalized URL", () => {
    const twins: McpServerRef[] = [
      { name: "x", url: URL_A },
      { name: "y", url: "https://a.example:443/mcp#docs" },
    ];
    expect(connectionStatuses(twins, [cred()], now).map((s) => [s.status, s.credentialId])).to.deep.equal([
      ["connected", "cred_1"],
      ["connected", "cred_1"],
    ]);
  });
});
