/**
 * Which destinations the service may reach on behalf of users (MCP servers, OAuth token endpoints, web
 * pages) and tool processes may reach through the sandbox's egress proxy: public unicast addresses
 * only, never this machine's own, plus the operator's allow-list. The addresses are classified by
 * ipaddr.js; `guardedFetch` (outbound.ts) applies this policy to every hop of every request, and the
 * egress proxy (egress-proxy.ts) to every connection, in its sandbox form (`forSandbox`), where the
 * allow-list never opens the machine itself.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Network = [Address, number];

/** One resolved address, as `dns.lookup` gives it with `all: true`. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (the system resolver by default; tests inject one). */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

/**
 * A destination the policy refuses. The message names the host and the reason only: never the URL's
 * path or query, nor any header, since those may carry secrets, and never the address a name resolved
 * to (the message reaches callers, who must not learn the internal network's addresses by probing it;
 * `address` keeps it for the log).
 */
export class OutboundRefused extends Error {
  override readonly name = "OutboundRefused";

  constructor(
    readonly host: string,
    readonly reason: string,
    readonly address?: string,
  ) {
    super(`refused: ${host} ${reason}`);
  }
}

export function isOutboundRefused(err: unknown): err is OutboundRefused {
  return err instanceof OutboundRefused;
}

/** What each non-public range of ipaddr.js is called in a refusal ("… is a private address"). */
const RANGE_NAMES: Record<string, string> = {
  private: "a private address",
  loopback: "a loopback address",
  linkLocal: "a link-local address",
  uniqueLocal: "a unique-local address",
  unspecified: "an unspecified address",
  carrierGradeNat: "a carrier-grade NAT address",
  multicast: "a multicast address",
  broadcast: "a broadcast address",
  reserved: "a reserved address",
  deprecatedSiteLocal: "a site-local address",
};

/**
 * ::/96, the deprecated IPv4-compatible form. ipaddr.js calls `::a00:1` unicast (and parses `::10.0.0.1`
 * as IPv4-mapped), so it is refused here explicitly, whatever IPv4 address it embeds.
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");

/**
 * NAT64's well-known prefix (RFC 6052): on an IPv6-only network with DNS64 every IPv4 host resolves to
 * 64:ff9b::<IPv4>, which the gateway translates; so the embedded IPv4 address is what is reached.
 */
const NAT64 = ipaddr.parseCIDR("64:ff9b::/96");

/** Parses an allow-list entry, a CIDR or a single address (as `loadConfig` has validated it). */
export function parseNetwork(entry: string): Network {
  if (entry.includes("/")) return ipaddr.parseCIDR(entry);
  const address = ipaddr.parse(entry);
  return [address, address.kind() === "ipv4" ? 32 : 128];
}

/** Cloud metadata services answer on these; worth naming, since they are the classic SSRF target. */
const METADATA = ["169.254.169.254", "fd00:ec2::254"].map(parseNetwork);

function inNetwork(address: Address, [base, bits]: Network): boolean {
  return address.kind() === base.kind() && address.match(base, bits);
}

function nat64Embedded(address: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = address.toByteArray();
  return new ipaddr.IPv4(bytes.slice(12));
}

const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true });

/** The addresses of this machine's interfaces (a public one may be among them). */
export type MachineAddresses = () => readonly string[];

/** How long the interfaces' addresses are remembered: they change rarely, and a check runs per connection. */
const MACHINE_ADDRESSES_MS = 5_000;

function cachedMachineAddresses(): MachineAddresses {
  let read = 0;
  let addresses: string[] = [];
  return () => {
    if (Date.now() - read > MACHINE_ADDRESSES_MS) {
      addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
      read = Date.now();
    }
    return addresses;
  };
}

const systemMachineAddresses = cachedMachineAddresses();

export interface PolicyOptions {
  resolve?: Resolve;
  machineAddresses?: MachineAddresses;
  /**
   * False for tool processes: loopback and this machine's own addresses are refused even when the
   * allow-list names them (the stores and the service listen there; the allow-list exists to open
   * private networks, and loopback for the service's own fetches in development).
   */
  machineReachable?: boolean;
}

export class OutboundPolicy {
  private readonly allowed: Network[];
  readonly resolve: Resolve;
  private readonly machineAddresses: MachineAddresses;
  private readonly machineReachable: boolean;

  /** `allowedNetworks`: CIDRs or single addresses reachable even though not public (config). */
  constructor(
    private readonly allowedNetworks: readonly string[] = [],
    options: PolicyOptions = {},
  ) {
    this.allowed = allowedNetworks.map(parseNetwork);
    this.resolve = options.resolve ?? systemResolve;
    this.machineAddresses = options.machineAddresses ?? systemMachineAddresses;
    this.machineReachable = options.machineReachable ?? true;
  }

  /** The same policy for tool processes: the allow-list opens no address of this machine, loopback included. */
  forSandbox(): OutboundPolicy {
    return new OutboundPolicy(this.allowedNetworks, { resolve: this.resolve, machineAddresses: this.machineAddresses, machineReachable: false });
  }

  /** Why `address` (an IP literal) is refused, as "is a … address"; undefined when it may be reached. */
  addressProblem(address: string): string | undefined {
    const parsed = ipaddr.parse(address);
    // IPv4-mapped IPv6 (::ffff:10.0.0.5) reaches the IPv4 address: classify, and allow-list, that one.
    const target = ipaddr.process(address);
    const machine = this.machineProblem(target);
    if (machine !== undefined && !this.machineReachable) return machine;
    if (this.allowed.some((net) => inNetwork(parsed, net) || inNetwork(target, net))) return undefined;
    if (machine !== undefined) return machine;
    if (METADATA.some((net) => inNetwork(target, net))) {
      return "is a link-local address (cloud metadata service)";
    }
    if (target instanceof ipaddr.IPv6 && inNetwork(target, NAT64)) {
      const embedded = nat64Embedded(target);
      const inner = this.addressProblem(embedded.toString());
      return inner === undefined ? undefined : `is NAT64 for ${embedded.toString()}, which ${inner}`;
    }
    const range = target.range();
    if (range === "unicast") {
      return inNetwork(target, IPV4_COMPATIBLE) ? "is an IPv4-compatible address (deprecated)" : undefined;
    }
    return `is ${RANGE_NAMES[range] ?? `not a public unicast address (${range})`}`;
  }

  /** Loopback, or an address of one of this machine's interfaces: the machine itself. */
  private machineProblem(target: Address): string | undefined {
    if (target.range() === "loopback") return "is a loopback address";
    const seen = target.toNormalizedString();
    const own = this.machineAddresses().some((address) => ipaddr.isValid(address) && ipaddr.process(address).toNormalizedString() === seen);
    return own ? "is an address of this machine" : undefined;
  }

  /**
   * Checks what can be checked without DNS: the scheme, credentials in the URL, and a host that is an
   * IP literal (which the connection's lookup never sees). Throws OutboundRefused.
   */
  checkUrl(url: URL): void {
    const host = url.hostname;
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new OutboundRefused(host || "(no host)", `uses ${url.protocol}, only http: and https: are allowed`);
    }
    if (url.username !== "" || url.password !== "") throw new OutboundRefused(host, "has credentials in the URL");
    const literal = bareHost(host);
    if (isIP(literal) !== 0) {
      const problem = this.addressProblem(literal);
      if (problem !== undefined) throw new OutboundRefused(literal, problem);
    }
  }

  /** Every address of `hostname`, all of them permitted; one refused address refuses the host. */
  async resolveChecked(hostname: string): Promise<ResolvedAddress[]> {
    const literal = bareHost(hostname);
    if (isIP(literal) !== 0) {
      const problem = this.addressProblem(literal);
      if (problem !== undefined) throw new OutboundRefused(literal, problem);
      return [{ address: literal, family: isIP(literal) }];
    }
    const addresses = await this.resolve(literal);
    if (addresses.length === 0) throw new OutboundRefused(literal, "has no address");
    for (const { address } of addresses) {
      const problem = this.addressProblem(address);
      if (problem !== undefined) throw new OutboundRefused(literal, problem.replace(/^is /, "resolves to "), address);
    }
    return addresses;
  }
}

/** A URL's hostname without the brackets of an IPv6 literal. */
function bareHost(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}
