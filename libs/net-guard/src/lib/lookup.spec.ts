import { DnsTestServer } from '@switchyard/testing';
import { dnsEnvSchema, dnsServersLookup, parseDnsServers } from './lookup';

describe(parseDnsServers.name, () => {
  it.each([
    ['', []],
    ['127.0.0.1', ['127.0.0.1']],
    ['127.0.0.1:5353, [::1]:53', ['127.0.0.1:5353', '[::1]:53']],
    ['::1', ['::1']],
  ])('%j → %j', (raw, servers) => {
    expect(parseDnsServers(raw)).toEqual(servers);
  });

  it.each(['dns.example', '127.0.0.1:53:1', 'localhost:53'])('refuses %s', (raw) => {
    expect(() => parseDnsServers(raw)).toThrow('is not an IP address with an optional port');
  });

  it('names the variable when the environment is wrong', () => {
    const parsed = dnsEnvSchema.safeParse({ SWITCHYARD_DNS_SERVERS: 'dns.example' });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('SWITCHYARD_DNS_SERVERS');
  });
});

describe(dnsServersLookup.name, () => {
  let dns: DnsTestServer;
  beforeAll(async () => {
    dns = await DnsTestServer.start({
      'both.sy.test': ['192.0.2.7', '2001:db8::7'],
      'v4.sy.test': ['192.0.2.8'],
    });
  });
  afterAll(() => dns.close());

  it('asks the given servers for A and AAAA', async () => {
    const lookup = dnsServersLookup([dns.address]);
    expect(await lookup('both.sy.test')).toEqual([
      { address: '192.0.2.7', family: 4 },
      { address: '2001:db8::7', family: 6 },
    ]);
    expect(await lookup('v4.sy.test')).toEqual([{ address: '192.0.2.8', family: 4 }]);
  });

  it('fails with ENOTFOUND for a name the servers do not know', async () => {
    await expect(dnsServersLookup([dns.address])('nowhere.sy.test')).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
  });

  it('answers an IP literal without asking', async () => {
    expect(await dnsServersLookup(['127.0.0.1:9'])('10.1.2.3')).toEqual([{ address: '10.1.2.3', family: 4 }]);
  });
});
