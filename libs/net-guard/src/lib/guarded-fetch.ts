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
 * `connect.lookup`), so what was checked is what is connected to — on every redirect too. A
 * refusal is thrown as itself (`refusing to connect to …`), not as undici's "fetch failed".
 */
export function guardedFetch(opts: GuardedFetchOptions): GuardedFetch {
  const lookup = opts.lookup ?? systemLookup;
  const allowed = new Set(opts.allowHosts.map(normalizeHost));
  const vetted = new Agent({
    connect: { lookup: vettingLookup(lookup, { allowVariable: opts.allowVariable }) },
  });
  // An allowed host skips the address check, not the configured resolver.
  const trusted = new Agent({ connect: { lookup: vettingLookup(lookup, { vet: false }) } });
  const once = async (url: URL, init: RequestInit | undefined): Promise<Response> => {
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
      // Redirects are followed here, each hop checked as the first (an IP literal skips the
      // connection's lookup, so undici must not follow one unchecked).
      return (await undiciFetch(url, {
        ...(init as UndiciRequestInit),
        redirect: 'manual',
        dispatcher: trustedHost ? trusted : vetted,
      })) as unknown as Response;
    } catch (err) {
      // fetch wraps connection errors ("fetch failed"); the refusal is the cause worth reporting.
      const cause = (err as { cause?: unknown }).cause;
      throw cause instanceof Error && cause.message.startsWith('refusing to connect') ? cause : err;
    }
  };
  return async (input, init) => {
    let url = new URL(typeof input === 'string' ? input : input.href);
    let current = init;
    for (let hop = 0; ; hop++) {
      const res = await once(url, current);
      const location = res.headers.get('location');
      if (init?.redirect === 'manual' || !REDIRECTS.has(res.status) || !location) {
        return res;
      }
      await res.body?.cancel().catch(() => undefined);
      if (init?.redirect === 'error') {
        throw new TypeError(`${url.origin} redirected (${res.status}) and redirects were refused`);
      }
      if (hop >= MAX_REDIRECTS) {
        throw new TypeError(`more than ${MAX_REDIRECTS} redirects from ${url.origin}`);
      }
      const next = new URL(location, url);
      const method = (current?.method ?? 'GET').toUpperCase();
      // As fetch does: 303 (and 301/302 of a POST) go on as a GET without a body; credentials do
      // not follow to another origin.
      const asGet = res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST');
      const headers = new Headers(current?.headers);
      if (next.origin !== url.origin) {
        for (const h of ['authorization', 'cookie', 'proxy-authorization']) {
          headers.delete(h);
        }
      }
      current = { ...current, headers, ...(asGet ? { method: 'GET', body: undefined } : {}) };
      url = next;
    }
  };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

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
