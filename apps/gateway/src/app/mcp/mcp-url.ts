import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Why an address is not a public unicast one, or undefined when it is. */
export function nonPublicReason(address: string): string | undefined {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  if (ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress()) {
    return nonPublicReason(ip.toIPv4Address().toString());
  }
  if (ip.range() !== 'unicast') {
    return `a ${ip.range()} address`;
  }
  if (ip instanceof ipaddr.IPv6 && !ip.match(GLOBAL_UNICAST_V6)) {
    return 'outside the global unicast range';
  }
  return undefined;
}

/**
 * Why an MCP server URL is refused, or undefined: http(s) only, no credentials in the URL (send
 * them as headers, which are sealed), and — the same SSRF rule as the http tools — a host that is
 * or resolves to a private, loopback or link-local address only when the operator allowed it
 * (`SWITCHYARD_MCP_HTTP_ALLOW_HOSTS`). The tool-executor checks again on every request.
 */
export async function refuseMcpUrl(raw: string, allowHosts: readonly string[]): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return 'url must use http or https';
  }
  if (url.username || url.password) {
    return 'url must not carry credentials: send them in headers (stored sealed)';
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (allowHosts.includes(host)) {
    return undefined;
  }
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await dns.lookup(host, { all: true })).map((a) => a.address);
    } catch {
      return `url host ${host} does not resolve`;
    }
  }
  for (const address of addresses) {
    const reason = nonPublicReason(address);
    if (reason) {
      const what = address === host ? 'is' : `resolves to ${address},`;
      return `url host ${host} ${what} ${reason}; an operator can allow it with SWITCHYARD_MCP_HTTP_ALLOW_HOSTS`;
    }
  }
  return undefined;
}
