import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { z } from 'zod';

/** Resolves a hostname to every address it has, like `dns.lookup(host, { all: true })`. */
export type HostLookup = (hostname: string) => Promise<{ address: string; family?: number }[]>;

/** The system's resolver (getaddrinfo: /etc/hosts, then the system's DNS servers). */
export const systemLookup: HostLookup = (hostname) => dns.lookup(hostname, { all: true });

/** `ip`, `ip:port` or `[ipv6]:port`, as dns.Resolver#setServers takes them; anything else is refused. */
export function parseDnsServers(raw: string): string[] {
  const servers = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of servers) {
    // [v6]:port, v4[:port], or a bare v6 address.
    const [, host, port] = /^\[([^\]]+)\](?::(\d+))?$/.exec(s) ?? /^([\d.]+)(?::(\d+))?$/.exec(s) ?? [s, s];
    const portOk = port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
    if (!isIP(host) || !portOk) {
      throw new Error(`"${s}" is not an IP address with an optional port`);
    }
  }
  return servers;
}

const NO_ANSWER = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * A lookup that asks the given DNS servers directly (A and AAAA), bypassing the system resolver:
 * tool traffic can be resolved by a dedicated (filtering, split-horizon) resolver, and tests can
 * answer names with a resolver of their own. A name without any answer fails as ENOTFOUND.
 */
export function dnsServersLookup(servers: string[], timeoutMs = 5000): HostLookup {
  const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 2 });
  resolver.setServers(servers);
  const ask = (query: Promise<string[]>) =>
    query.catch((err: NodeJS.ErrnoException) => {
      if (err.code && NO_ANSWER.has(err.code)) {
        return [] as string[];
      }
      throw err;
    });
  return async (hostname) => {
    if (isIP(hostname)) {
      return [{ address: hostname, family: isIP(hostname) }];
    }
    const [v4, v6] = await Promise.all([ask(resolver.resolve4(hostname)), ask(resolver.resolve6(hostname))]);
    const answers = [
      ...v4.map((address) => ({ address, family: 4 })),
      ...v6.map((address) => ({ address, family: 6 })),
    ];
    if (answers.length === 0) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    return answers;
  };
}

/** SWITCHYARD_DNS_SERVERS: the DNS servers the network tools resolve with (default: the system's resolver). */
export const dnsEnvSchema = z.object({
  SWITCHYARD_DNS_SERVERS: z
    .string()
    .default('')
    .transform((raw, ctx) => {
      try {
        return parseDnsServers(raw);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `${(err as Error).message} (expected ip[:port],…)` });
        return z.NEVER;
      }
    }),
});

/** The lookup the network tools use under this configuration. */
export function toolLookup(env: z.infer<typeof dnsEnvSchema>): HostLookup {
  return env.SWITCHYARD_DNS_SERVERS.length > 0 ? dnsServersLookup(env.SWITCHYARD_DNS_SERVERS) : systemLookup;
}

/** An allow-list variable: host names or IPs separated by commas (empty = none). */
export const hostListSchema = z
  .string()
  .default('')
  .transform((raw) =>
    raw
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean),
  );
