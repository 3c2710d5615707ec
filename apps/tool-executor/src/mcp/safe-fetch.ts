import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { forbiddenAddressReason } from '../tools/http-get.tool';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;
export type HostLookup = (host: string) => Promise<{ address: string }[]>;

/**
 * The fetch the streamable-HTTP transport uses: before every request (the SDK follows only
 * same-origin redirects) the host must be public — the rule of the http tools — unless the
 * operator allowed it. The address is checked, not pinned: undici resolves again, so a DNS
 * rebinding between the two lookups is not caught (see docs/decisions.md).
 */
export function safeMcpFetch(
  allowHosts: readonly string[],
  lookup: HostLookup = (h) => dns.lookup(h, { all: true }),
  base: Fetch = fetch,
): Fetch {
  const allowed = new Set(allowHosts);
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input.href);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    if (!allowed.has(host)) {
      const addresses = isIP(host) ? [host] : (await lookup(host)).map((a) => a.address);
      for (const address of addresses) {
        const reason = forbiddenAddressReason(address);
        if (reason) {
          throw new Error(
            `refusing to connect to ${url.origin}: ${address} is ${reason} (allow it with SWITCHYARD_MCP_HTTP_ALLOW_HOSTS)`,
          );
        }
      }
    }
    return base(input, init);
  };
}
