import { failingPorts } from '@switchyard/testing';
import { safeMcpFetch } from '../mcp/safe-fetch';
import type { HostLookup } from '@switchyard/net-guard';
import { HttpGetError, httpGet } from './http-get.tool';
import { httpRequest } from './http-request.tool';

// Every network tool against socket failures that happen synchronously (connect() itself fails:
// a multicast address has no TCP route, as every address has none in a network namespace without
// routes) and asynchronously (refused, reset). Each is a rejected call with a network error —
// never an 'error' event emitted before anyone listens, which took the tool-executor down.
// Nothing here leaves the machine: 224.0.0.1 fails inside the kernel, the rest is loopback.

const HOST = 'target.sy.test';
let closedPort: number;
let ports: Awaited<ReturnType<typeof failingPorts>>;
let resetPort: number;

beforeAll(async () => {
  ports = await failingPorts();
  ({ closedPort, resetPort } = ports);
});

afterAll(() => ports.close());

const answer =
  (address: string): HostLookup =>
  async () => [{ address, family: 4 }];

const failures: [string, string, () => number, RegExp][] = [
  ['synchronous: no route (ENETUNREACH)', '224.0.0.1', () => 80, /ENETUNREACH/],
  ['asynchronous: refused', '127.0.0.1', () => closedPort, /ECONNREFUSED/],
  ['asynchronous: reset', '127.0.0.1', () => resetPort, /ECONNRESET|socket hang up/],
];

describe.each(failures)('%s', (_name, address, port, cause) => {
  const url = () => `http://${HOST}:${port()}/x`;
  const opts = () => ({ lookup: answer(address), allowHosts: [HOST], timeoutMs: 5000 });

  it('http_get rejects with network_error', async () => {
    const err = await httpGet({ url: url() }, opts()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpGetError);
    expect(err).toMatchObject({ code: 'network_error', retryable: true });
    expect((err as Error).message).toMatch(cause);
  });

  it('http_request rejects with network_error', async () => {
    const err = await httpRequest({ url: url(), method: 'POST', body: '{"a":1}' }, opts()).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HttpGetError);
    expect(err).toMatchObject({ code: 'network_error' });
    expect((err as Error).message).toMatch(cause);
  });

  it('the MCP http fetch rejects with the socket error as its cause', async () => {
    const f = safeMcpFetch([HOST], answer(address));
    const err = (await f(url(), { method: 'POST', body: '{}' }).catch((e: unknown) => e)) as Error & {
      cause?: { code?: string; message?: string };
    };
    expect(err).toBeInstanceOf(Error);
    expect(`${err.cause?.code} ${err.cause?.message}`).toMatch(cause);
  });
});
