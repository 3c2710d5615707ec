import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch } from './guarded-fetch';

let server: Server;
let port: number;
let hits = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++;
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

describe(guardedFetch.name, () => {
  it('reaches an allowed host', async () => {
    const f = guardedFetch({ allowHosts: ['127.0.0.1'], allowVariable: 'X_ALLOW' });
    expect(await (await f(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
  });

  it('refuses a loopback literal before connecting, naming the variable that allows it', async () => {
    const before = hits;
    const f = guardedFetch({ allowHosts: [], allowVariable: 'X_ALLOW' });
    await expect(f(`http://127.0.0.1:${port}/`)).rejects.toThrow(
      `refusing to connect to http://127.0.0.1:${port}: 127.0.0.1 is a loopback address (allow it with X_ALLOW)`,
    );
    expect(hits).toBe(before);
  });

  it('refuses a name that resolves to a private address inside the connection', async () => {
    const f = guardedFetch({
      allowHosts: [],
      allowVariable: 'X_ALLOW',
      lookup: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
    });
    const before = hits;
    await expect(f(`http://provider.test:${port}/`)).rejects.toThrow(
      'refusing to connect to provider.test: 127.0.0.1 is a loopback address (allow it with X_ALLOW)',
    );
    expect(hits).toBe(before);
  });

  it('allows a name listed in the allow-list, through the configured resolver', async () => {
    const f = guardedFetch({
      allowHosts: ['Provider.Test'],
      allowVariable: 'X_ALLOW',
      lookup: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
    });
    expect((await f(`http://provider.test:${port}/`)).status).toBe(200);
  });
});
