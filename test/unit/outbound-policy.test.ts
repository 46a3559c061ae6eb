import { expect } from "chai";
import { ConfigError, loadConfig } from "../../src/config.js";
import { isOutboundRefused, OutboundPolicy, OutboundRefused, type ResolvedAddress } from "../../src/outbound/outbound-policy.js";

/** A resolver that knows only `names`; the system's DNS is never asked. */
function resolver(names: Record<string, string[]>) {
  return async (hostname: string): Promise<ResolvedAddress[]> => (names[hostname] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
}

/** The refusal `run` throws (failing when it throws anything else, or nothing). */
async function refusal(run: () => unknown): Promise<OutboundRefused> {
  const err = await Promise.resolve()
    .then(run)
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(isOutboundRefused(err), String(err)).to.equal(true);
  return err as OutboundRefused;
}

/** Which destinations the outbound guard lets through, without any network (pure but for the injected resolver). */
describe("Outbound policy: public unicast only, unless allow-listed", () => {
  const policy = new OutboundPolicy();

  const refused: [string, string][] = [
    ["10.0.0.5", "is a private address"],
    ["172.16.0.1", "is a private address"],
    ["172.31.255.255", "is a private address"],
    ["192.168.1.1", "is a private address"],
    ["127.0.0.1", "is a loopback address"],
    ["127.1.2.3", "is a loopback address"],
    ["::1", "is a loopback address"],
    ["169.254.169.254", "is a link-local address (cloud metadata service)"],
    ["169.254.1.1", "is a link-local address"],
    ["fe80::1", "is a link-local address"],
    ["fd00:ec2::254", "is a link-local address (cloud metadata service)"],
    ["fc00::1", "is a unique-local address"],
    ["fd12:3456::1", "is a unique-local address"],
    ["fec0::1", "is a site-local address"],
    ["0.0.0.0", "is an unspecified address"],
    ["0.1.2.3", "is an unspecified address"],
    ["::", "is an unspecified address"],
    ["100.64.0.1", "is a carrier-grade NAT address"],
    ["100.127.255.254", "is a carrier-grade NAT address"],
    ["224.0.0.1", "is a multicast address"],
    ["239.255.255.250", "is a multicast address"],
    ["ff02::1", "is a multicast address"],
    ["255.255.255.255", "is a broadcast address"],
    ["240.0.0.1", "is a reserved address"],
    ["192.0.2.1", "is a reserved address"],
    ["198.18.0.1", "is a reserved address"],
    ["2001:db8::1", "is a reserved address"],
    ["::ffff:10.0.0.5", "is a private address"],
    ["::ffff:127.0.0.1", "is a loopback address"],
    ["::ffff:7f00:1", "is a loopback address"],
    ["::ffff:169.254.169.254", "is a link-local address (cloud metadata service)"],
    ["::ffff:100.64.0.1", "is a carrier-grade NAT address"],
    ["::ffff:0.0.0.0", "is an unspecified address"],
    ["::a00:5", "is an IPv4-compatible address (deprecated)"],
    ["64:ff9b::a00:5", "is NAT64 for 10.0.0.5, which is a private address"],
    ["64:ff9b::7f00:1", "is NAT64 for 127.0.0.1, which is a loopback address"],
    ["2002:a00:1::1", "is not a public unicast address (6to4)"],
    ["2001::1", "is not a public unicast address (teredo)"],
  ];

  it("refuses every non-public range, IPv4-mapped IPv6 of them included, saying which it is", () => {
    for (const [address, reason] of refused) expect(policy.addressProblem(address), address).to.equal(reason);
  });

  it("lets public unicast through, IPv4-mapped and NAT64 forms of public IPv4 included", () => {
    for (const address of ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::808:808"]) {
      expect(policy.addressProblem(address), address).to.equal(undefined);
    }
  });

  it("the allow-list names networks or single addresses, and applies to the IPv4 an IPv4-mapped address reaches", () => {
    const allowing = new OutboundPolicy(["127.0.0.1/32", "10.0.0.0/8", "::1", "fd00::/8"]);
    for (const address of ["127.0.0.1", "::ffff:127.0.0.1", "10.200.0.1", "::1", "fd00:1::5"]) {
      expect(allowing.addressProblem(address), address).to.equal(undefined);
    }
    expect(allowing.addressProblem("127.0.0.2")).to.equal("is a loopback address");
    expect(allowing.addressProblem("169.254.169.254")).to.equal("is a link-local address (cloud metadata service)");
    expect(allowing.addressProblem("fc00::1")).to.equal("is a unique-local address");
    expect(allowing.addressProblem("8.8.8.8"), "public stays allowed").to.equal(undefined);
  });

  it("this machine's own addresses are refused, a public one too, unless allow-listed", () => {
    const machine = new OutboundPolicy([], { machineAddresses: () => ["127.0.0.1", "203.0.114.7", "2a01:4f8::7"] });
    expect(machine.addressProblem("203.0.114.7")).to.equal("is an address of this machine");
    expect(machine.addressProblem("::ffff:203.0.114.7"), "IPv4-mapped").to.equal("is an address of this machine");
    expect(machine.addressProblem("2a01:4f8:0:0::7"), "another spelling").to.equal("is an address of this machine");
    expect(machine.addressProblem("203.0.114.8"), "a neighbour is public").to.equal(undefined);
    expect(
      new OutboundPolicy(["203.0.114.7"], { machineAddresses: () => ["203.0.114.7"] }).addressProblem("203.0.114.7"),
      "the operator's allow-list",
    ).to.equal(undefined);
  });

  it("for tool processes the allow-list opens private networks but never the machine itself", () => {
    const sandbox = new OutboundPolicy(["127.0.0.0/8", "::1", "10.0.0.0/8", "203.0.114.7"], {
      machineAddresses: () => ["10.1.2.3", "203.0.114.7"],
    }).forSandbox();
    expect(sandbox.addressProblem("127.0.0.1")).to.equal("is a loopback address");
    expect(sandbox.addressProblem("::ffff:127.0.0.1")).to.equal("is a loopback address");
    expect(sandbox.addressProblem("::1")).to.equal("is a loopback address");
    expect(sandbox.addressProblem("64:ff9b::7f00:1")).to.equal("is NAT64 for 127.0.0.1, which is a loopback address");
    expect(sandbox.addressProblem("10.1.2.3")).to.equal("is an address of this machine");
    expect(sandbox.addressProblem("203.0.114.7")).to.equal("is an address of this machine");
    expect(sandbox.addressProblem("10.9.9.9"), "another host of an allowed network").to.equal(undefined);
    expect(sandbox.addressProblem("169.254.169.254")).to.equal("is a link-local address (cloud metadata service)");
    expect(sandbox.addressProblem("8.8.8.8")).to.equal(undefined);
  });

  it("a URL must be http or https, carry no credentials, and an IP-literal host is checked at once", async () => {
    for (const raw of ["ftp://8.8.8.8/", "file:///etc/passwd", "gopher://example.com/", "data:text/plain,x"]) {
      expect((await refusal(() => policy.checkUrl(new URL(raw)))).reason, raw).to.match(/^uses [a-z]+:, only http: and https: are allowed$/);
    }
    for (const raw of ["https://user:pass@example.com/", "https://user@example.com/", "http://:pw@8.8.8.8/"]) {
      expect((await refusal(() => policy.checkUrl(new URL(raw)))).reason, raw).to.equal("has credentials in the URL");
    }
    // The URL parser turns every spelling of an IPv4 address into the dotted one, and the check sees that.
    for (const raw of ["http://127.0.0.1/", "http://2130706433/", "http://0x7f.1/", "http://[::1]/", "http://[::ffff:127.0.0.1]:8080/"]) {
      expect((await refusal(() => policy.checkUrl(new URL(raw)))).reason, raw).to.equal("is a loopback address");
    }
    expect(() => policy.checkUrl(new URL("https://example.com/mcp?x=1")), "a name waits for its resolution").to.not.throw();
    expect(() => policy.checkUrl(new URL("https://8.8.8.8/"))).to.not.throw();
  });

  it("a host name is refused when any of its addresses is, naming the host and the address only", async () => {
    const dns = new OutboundPolicy([], {
      resolve: resolver({
        "public.test": ["93.184.216.34", "2606:2800:220:1::1"],
        "mixed.test": ["93.184.216.34", "10.0.0.5"],
        "meta.test": ["169.254.169.254"],
      }),
    });
    expect(await dns.resolveChecked("public.test")).to.have.length(2);
    const mixed = await refusal(() => dns.resolveChecked("mixed.test"));
    expect(mixed.message, "the resolved address is not told").to.equal("refused: mixed.test resolves to a private address");
    expect(mixed.host).to.equal("mixed.test");
    expect(mixed.address, "but kept for the log").to.equal("10.0.0.5");
    expect((await refusal(() => dns.resolveChecked("meta.test"))).message).to.equal(
      "refused: meta.test resolves to a link-local address (cloud metadata service)",
    );
    expect((await refusal(() => dns.resolveChecked("nowhere.test"))).message).to.equal("refused: nowhere.test has no address");
    expect((await refusal(() => dns.resolveChecked("[::1]"))).message, "a literal is not resolved").to.equal("refused: ::1 is a loopback address");
  });

  it("the refusal is an Error of its own class, told apart by the guard", () => {
    const err = new OutboundRefused("10.0.0.5", "is a private address");
    expect(err).to.be.instanceOf(Error);
    expect(err.name).to.equal("OutboundRefused");
    expect(err.message).to.equal("refused: 10.0.0.5 is a private address");
    expect(isOutboundRefused(err)).to.equal(true);
    expect(isOutboundRefused(new Error("refused: 10.0.0.5 is a private address"))).to.equal(false);
    expect(isOutboundRefused(undefined)).to.equal(false);
  });
});

describe("Configuration: OUTBOUND_ALLOWED_NETWORKS", () => {
  it("defaults to no network; takes CIDRs and single addresses, comma-separated, spaces ignored", () => {
    expect(loadConfig({}).outboundAllowedNetworks).to.deep.equal([]);
    expect(loadConfig({ OUTBOUND_ALLOWED_NETWORKS: "" }).outboundAllowedNetworks).to.deep.equal([]);
    const config = loadConfig({ OUTBOUND_ALLOWED_NETWORKS: "127.0.0.1/32, ::1 ,10.0.0.0/8,fd00::/8,192.168.1.7," });
    expect(config.outboundAllowedNetworks).to.deep.equal(["127.0.0.1/32", "::1", "10.0.0.0/8", "fd00::/8", "192.168.1.7"]);
    expect(() => new OutboundPolicy(config.outboundAllowedNetworks), "every valid entry builds a policy").to.not.throw();
  });

  it("a bad entry is a configuration error naming the variable and the entry", () => {
    for (const bad of ["10.0.0.0/33", "::1/129", "not-an-ip", "10.1", "010.0.0.1", "fe80::1%eth0", "10.0.0.0/8/1", "10.0.0.0/", "example.com"]) {
      const run = () => loadConfig({ OUTBOUND_ALLOWED_NETWORKS: `127.0.0.1/32,${bad}` });
      expect(run, bad).to.throw(ConfigError, `OUTBOUND_ALLOWED_NETWORKS must be comma-separated CIDRs or IP addresses; "${bad}" is neither`);
    }
  });
});
