import { isIP } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import {
  type HostLookup,
  forbiddenAddressReason,
  refusal,
  systemLookup,
  vettingLookup,
} from '@switchyard/net-guard';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

const ALLOW_VARIABLE = 'SWITCHYARD_MCP_HTTP_ALLOW_HOSTS';

/**
 * The fetch the streamable-HTTP transport uses (the SDK follows only same-origin redirects): the
 * host must be public — the rule of the http tools — unless the operator allowed it. An IP literal
 * is checked before the request; a name is checked by the connection's own lookup (undici with a
 * vetting `connect.lookup`), so what was checked is what is connected to.
 */
export function safeMcpFetch(allowHosts: readonly string[], lookup: HostLookup = systemLookup): Fetch {
  const allowed = new Set(allowHosts);
  const vetted = new Agent({ connect: { lookup: vettingLookup(lookup, { allowVariable: ALLOW_VARIABLE }) } });
  // An allowed host skips the address check, not the configured resolver.
  const trusted = new Agent({ connect: { lookup: vettingLookup(lookup, { vet: false }) } });
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input.href);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    if (allowed.has(host)) {
      return (await undiciFetch(url, { ...(init as object), dispatcher: trusted })) as unknown as Response;
    }
    if (isIP(host)) {
      const reason = forbiddenAddressReason(host);
      if (reason) {
        throw refusal(url.origin, host, reason, ALLOW_VARIABLE);
      }
    }
    try {
      // undici's own fetch with its own Agent (the global fetch's undici may be another version).
      return (await undiciFetch(url, { ...(init as object), dispatcher: vetted })) as unknown as Response;
    } catch (err) {
      // fetch wraps connection errors ("fetch failed"); the refusal is the cause worth reporting.
      const cause = (err as { cause?: unknown }).cause;
      throw cause instanceof Error && cause.message.startsWith('refusing to connect') ? cause : err;
    }
  };
}
