import { isIP } from 'node:net';
import { Agent, type RequestInit as UndiciRequestInit, fetch as undiciFetch } from 'undici';
import { forbiddenAddressReason, normalizeHost } from './address';
import { type HostLookup, systemLookup } from './lookup';
import { refusal, vettingLookup } from './socket-lookup';

export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface GuardedFetchOptions {
  /** Host names or IPs (matched exactly, case-insensitively) that skip the address check. */
  allowHosts: readonly string[];
  /** The variable an operator sets to allow a host; named in every refusal. */
  allowVariable: string;
  lookup?: HostLookup;
}

/**
 * A fetch that reaches only public addresses unless the host is allowed by name: an IP literal is
 * checked before the request, a name inside the connection's own lookup (undici with a vetting
 * `connect.lookup`), so what was checked is what is connected to. A refusal is thrown as itself
 * (`refusing to connect to …`), not as undici's "fetch failed".
 */
export function guardedFetch(opts: GuardedFetchOptions): GuardedFetch {
  const lookup = opts.lookup ?? systemLookup;
  const allowed = new Set(opts.allowHosts.map(normalizeHost));
  const vetted = new Agent({
    connect: { lookup: vettingLookup(lookup, { allowVariable: opts.allowVariable }) },
  });
  // An allowed host skips the address check, not the configured resolver.
  const trusted = new Agent({ connect: { lookup: vettingLookup(lookup, { vet: false }) } });
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input.href);
    const host = normalizeHost(url.hostname);
    const trustedHost = allowed.has(host);
    if (!trustedHost && isIP(host)) {
      const reason = forbiddenAddressReason(host);
      if (reason) {
        throw refusal(url.origin, host, reason, opts.allowVariable);
      }
    }
    try {
      // undici's own fetch with its own Agent (the global fetch's undici may be another version).
      return (await undiciFetch(url, {
        ...(init as UndiciRequestInit),
        dispatcher: trustedHost ? trusted : vetted,
      })) as unknown as Response;
    } catch (err) {
      // fetch wraps connection errors ("fetch failed"); the refusal is the cause worth reporting.
      const cause = (err as { cause?: unknown }).cause;
      throw cause instanceof Error && cause.message.startsWith('refusing to connect') ? cause : err;
    }
  };
}

/**
 * The one address a non-HTTP client (SMTP) connects to for `host`, checked as the guarded fetch
 * checks its hosts: every answer must be public unless the host is allowed by name. The caller
 * connects to the returned address (with `host` as the TLS server name), so what was checked is
 * what is connected to.
 */
export async function vettedAddress(host: string, opts: GuardedFetchOptions): Promise<string> {
  const name = normalizeHost(host);
  const allowed = opts.allowHosts.map(normalizeHost).includes(name);
  const answers = isIP(name) ? [{ address: name }] : await (opts.lookup ?? systemLookup)(name);
  if (answers.length === 0) {
    throw new Error(`${host} does not resolve`);
  }
  if (!allowed) {
    for (const { address } of answers) {
      const reason = forbiddenAddressReason(address);
      if (reason) {
        throw refusal(host, address, reason, opts.allowVariable);
      }
    }
  }
  return answers[0].address;
}
