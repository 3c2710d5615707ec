import { firstForbidden, forbiddenAddressReason, normalizeHost } from './address';

describe(forbiddenAddressReason.name, () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['::ffff:192.168.1.1', 'a private address (IPv4-mapped 192.168.1.1)'],
    ['::7f00:1', 'outside the global unicast range 2000::/3'],
    ['64:ff9b::a00:1', 'a non-public (rfc6052) address'],
    ['2002:7f00:1::', 'a non-public (6to4) address'],
    ['2001:db8::1', 'a reserved address'],
    ['198.18.0.1', 'a reserved address'],
    ['192.52.193.1', 'a non-public (amt) address'],
    ['not-an-ip', 'not a valid IP address'],
  ])('%s is %s', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(forbiddenAddressReason(address)).toBeUndefined();
  });
});

describe(firstForbidden.name, () => {
  it('names the first address that is not public, or nothing', () => {
    expect(firstForbidden(['8.8.8.8', '10.0.0.1', '127.0.0.1'])).toEqual({
      address: '10.0.0.1',
      reason: 'a private address',
    });
    expect(firstForbidden(['8.8.8.8', '2606:4700:4700::1111'])).toBeUndefined();
    expect(firstForbidden([])).toBeUndefined();
  });
});

describe(normalizeHost.name, () => {
  it.each([
    ['Example.COM.', 'example.com'],
    ['[::FFFF:7F00:1]', '::ffff:7f00:1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['10.0.0.1', '10.0.0.1'],
  ])('%s → %s', (host, normal) => {
    expect(normalizeHost(host)).toBe(normal);
  });
});
