import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// The one rule of every outbound call a tenant's agent can aim (http tools, MCP over HTTP, SQL data
// sources, MCP server registration): only public unicast addresses, unless an operator allowed the
// host by name.

const RANGE_LABELS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private (unique local) address',
  linkLocal: 'a link-local address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  carrierGradeNat: 'a carrier-grade NAT address',
  reserved: 'a reserved address',
};

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Why fetching from `address` is refused, or undefined when it is a public unicast address. */
export function forbiddenAddressReason(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'not a valid IP address';
  }
  // ::ffff:a.b.c.d reaches the IPv4 host a.b.c.d, so it is judged as that host.
  if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress()) {
    const reason = forbiddenAddressReason(parsed.toIPv4Address().toString());
    return reason && `${reason} (IPv4-mapped ${parsed.toIPv4Address().toString()})`;
  }
  const range = parsed.range();
  if (range !== 'unicast') {
    return RANGE_LABELS[range] ?? `a non-public (${range}) address`;
  }
  // ipaddr calls unassigned IPv6 space (e.g. IPv4-compatible ::7f00:1) unicast; public hosts live in 2000::/3.
  if (parsed instanceof ipaddr.IPv6 && !parsed.match(GLOBAL_UNICAST_V6)) {
    return 'outside the global unicast range 2000::/3';
  }
  return undefined;
}

/** The first address that is not public, with why; undefined when every one is. */
export function firstForbidden(
  addresses: readonly string[],
): { address: string; reason: string } | undefined {
  for (const address of addresses) {
    const reason = forbiddenAddressReason(address);
    if (reason) {
      return { address, reason };
    }
  }
  return undefined;
}

// URL hostnames bracket IPv6 literals and may end in a root dot; neither matters for comparison.
export function normalizeHost(host: string): string {
  const bare = host
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  return isIP(bare) ? ipaddr.parse(bare).toString() : bare;
}
