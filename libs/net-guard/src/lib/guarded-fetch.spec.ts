import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch } from './guarded-fetch';

let server: Server;
let port: number;
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
    if (to) {
      res.writeHead(307, { Location: to }).end();
      return;
    }
    res.end(`ok ${req.method} ${req.headers['authorization'] ?? '-'}`);
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
    expect(await (await f(`http://127.0.0.1:${port}/`)).text()).toBe('ok GET -');
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

  it('checks every redirect: one to a private literal is refused, as the first request would be', async () => {
    const f = guardedFetch({
      allowHosts: ['provider.test'],
      allowVariable: 'X_ALLOW',
      lookup: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
    });
    const target = encodeURIComponent(`http://127.0.0.1:${port}/inner`);
    const before = hits;
    await expect(
      f(`http://provider.test:${port}/?to=${target}`, { method: 'POST', body: 'x' }),
    ).rejects.toThrow(
      `refusing to connect to http://127.0.0.1:${port}: 127.0.0.1 is a loopback address (allow it with X_ALLOW)`,
    );
    // The redirecting host was asked; the private address never was.
    expect(hits).toBe(before + 1);
  });

  it('follows an allowed redirect, keeping a 307 POST and its credentials on the same origin', async () => {
    const f = guardedFetch({ allowHosts: ['127.0.0.1'], allowVariable: 'X_ALLOW' });
    const same = encodeURIComponent(`http://127.0.0.1:${port}/next`);
    const res = await f(`http://127.0.0.1:${port}/?to=${same}`, {
      method: 'POST',
      body: 'x',
      headers: { Authorization: 'Bearer t' },
    });
    expect(await res.text()).toBe('ok POST Bearer t');
    const manual = await f(`http://127.0.0.1:${port}/?to=${same}`, { redirect: 'manual' });
    expect(manual.status).toBe(307);
  });
});
