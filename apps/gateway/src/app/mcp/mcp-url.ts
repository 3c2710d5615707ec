import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { firstForbidden } from '@switchyard/net-guard';

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
  const refused = firstForbidden(addresses);
  if (refused) {
    const what = refused.address === host ? 'is' : `resolves to ${refused.address},`;
    return `url host ${host} ${what} ${refused.reason}; an operator can allow it with SWITCHYARD_MCP_HTTP_ALLOW_HOSTS`;
  }
  return undefined;
}
