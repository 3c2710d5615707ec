import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostLookup } from '@switchyard/net-guard';
import { safeMcpFetch } from './safe-fetch';

// The MCP HTTP fetch against a real local server that counts connections: names are checked by
// the connection's own lookup, so a DNS answer that changes between requests never reaches it.

let server: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('mcp'));
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  connections = 0;
});

const fixed =
  (...addresses: string[]): HostLookup =>
  async () =>
    addresses.map((address) => ({ address }));

describe(safeMcpFetch.name, () => {
  it('reaches an allowed host', async () => {
    const res = await safeMcpFetch(['127.0.0.1'])(`http://127.0.0.1:${port}/`);
    expect(await res.text()).toBe('mcp');
    expect(connections).toBe(1);
  });

  it('refuses a loopback literal and a name resolving to a private address, without connecting', async () => {
    const lookup = jest.fn(fixed('93.184.215.14', '10.0.0.7'));
    const f = safeMcpFetch([], lookup);
    await expect(f(`http://127.0.0.1:${port}/`)).rejects.toThrow(
      `refusing to connect to http://127.0.0.1:${port}: 127.0.0.1 is a loopback address`,
    );
    await expect(f(`http://mixed.test:${port}/`)).rejects.toThrow(
      'refusing to connect to mixed.test: 10.0.0.7 is a private address',
    );
    expect(connections).toBe(0);
  });

  it('connects only to what its own lookup checked, never resolving the name again', async () => {
    // localhost resolves to this server through the system resolver (on every machine); the checked
    // answer here is public, so the connection goes there (and fails offline), never to this server.
    const f = safeMcpFetch([], fixed('93.184.215.14'));
    await expect(f(`http://localhost:${port}/`, { signal: AbortSignal.timeout(1500) })).rejects.toThrow();
    expect(connections).toBe(0);
  });

  it('checks the answer the connection itself uses: a rebinding DNS never reaches the local server', async () => {
    // First answer public (the connection goes there and fails offline), then loopback.
    let calls = 0;
    const rebinding: HostLookup = async () => [{ address: calls++ === 0 ? '93.184.215.14' : '127.0.0.1' }];
    const f = safeMcpFetch([], rebinding);
    await expect(f(`http://rebind.test:${port}/`, { signal: AbortSignal.timeout(1500) })).rejects.toThrow();
    await expect(f(`http://rebind.test:${port}/`)).rejects.toThrow(
      'refusing to connect to rebind.test: 127.0.0.1 is a loopback address',
    );
    expect(calls).toBe(2);
    expect(connections).toBe(0);
  });
});
