export { forbiddenAddressReason, firstForbidden, normalizeHost } from './lib/address';
export {
  type HostLookup,
  systemLookup,
  parseDnsServers,
  dnsServersLookup,
  dnsEnvSchema,
  toolLookup,
  hostListSchema,
} from './lib/lookup';
export { type ResolvedAddress, pinnedLookup, vettingLookup, refusal } from './lib/socket-lookup';
export {
  type GuardedFetch,
  type GuardedFetchOptions,
  guardedFetch,
  vettedAddress,
} from './lib/guarded-fetch';
