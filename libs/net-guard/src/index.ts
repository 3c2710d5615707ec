export { forbiddenAddressReason, firstForbidden, normalizeHost } from './lib/address';
export {
  type HostLookup,
  systemLookup,
  parseDnsServers,
  dnsServersLookup,
  dnsEnvSchema,
  toolLookup,
} from './lib/lookup';
export { type ResolvedAddress, pinnedLookup, vettingLookup, refusal } from './lib/socket-lookup';
