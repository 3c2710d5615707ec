import { type LookupFunction, isIP } from 'node:net';
import { forbiddenAddressReason } from './address';
import type { HostLookup } from './lookup';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/**
 * A `lookup` for http.request that answers only with the addresses already vetted. It answers
 * asynchronously, as dns.lookup does: net.Socket connects inside the callback, and a connect that
 * fails synchronously (ENETUNREACH, EADDRNOTAVAIL for an IPv6 address on a host without an IPv6
 * route) emits the socket's 'error' at once — before http.ClientRequest has attached its listener
 * when the answer came synchronously, which took the whole process down.
 */
export function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (hostname, options, callback) => setImmediate(answer, hostname, options, callback);

  function answer(...[hostname, options, callback]: Parameters<LookupFunction>): void {
    const family =
      options.family === 4 || options.family === 'IPv4'
        ? 4
        : options.family === 6 || options.family === 'IPv6'
          ? 6
          : 0;
    const usable = family ? addresses.filter((a) => a.family === family) : addresses;
    if (usable.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`no IPv${family} address for ${hostname}`);
      error.code = 'ENOTFOUND';
      callback(error, '');
    } else if (options.all) {
      callback(null, usable);
    } else {
      callback(null, usable[0].address, usable[0].family);
    }
  }
}

/** A refused address: the message names it and how an operator allows it (`allowVariable`). */
export function refusal(origin: string, address: string, reason: string, allowVariable?: string): Error {
  const how = allowVariable ? `allow it with ${allowVariable}` : 'an operator can allow the host by name';
  return new Error(`refusing to connect to ${origin}: ${address} is ${reason} (${how})`);
}

/**
 * A socket `lookup` that resolves the name itself and refuses it when any answer is not a public
 * address: the check happens in the connection's own resolution, so the socket connects to
 * exactly the addresses that were checked (a DNS rebinding has no second lookup to win).
 */
export function vettingLookup(
  lookup: HostLookup,
  opts: { vet?: boolean; allowVariable?: string } = {},
): LookupFunction {
  const vet = opts.vet ?? true;
  return (hostname, options, callback) => {
    lookup(hostname).then(
      (answers) => {
        const addresses = answers.map(({ address }) => ({ address, family: isIP(address) }));
        for (const { address } of vet ? addresses : []) {
          const reason = forbiddenAddressReason(address);
          if (reason) {
            callback(refusal(hostname, address, reason, opts.allowVariable), '');
            return;
          }
        }
        // Answered from exactly the checked addresses, as the http tools' sockets are.
        pinnedLookup(addresses.filter((a) => a.family !== 0))(hostname, options, callback);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}
