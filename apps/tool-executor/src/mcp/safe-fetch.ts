import { type HostLookup, guardedFetch, systemLookup } from '@switchyard/net-guard';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * The fetch the streamable-HTTP transport uses (the SDK follows only same-origin redirects): the
 * host must be public — the rule of the http tools — unless the operator allowed it in
 * SWITCHYARD_MCP_HTTP_ALLOW_HOSTS (net-guard's guardedFetch).
 */
export function safeMcpFetch(allowHosts: readonly string[], lookup: HostLookup = systemLookup): Fetch {
  return guardedFetch({ allowHosts, allowVariable: 'SWITCHYARD_MCP_HTTP_ALLOW_HOSTS', lookup });
}
