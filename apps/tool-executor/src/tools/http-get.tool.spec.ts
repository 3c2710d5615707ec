import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  httpGet,
  HttpGetError,
  httpGetInputSchema,
  httpGetTool,
  type HostLookup,
  type HttpGetErrorCode,
  type HttpGetOptions,
} from './http-get.tool';

// Tests must never reach past loopback: any hostname not answered here fails instead of hitting real DNS.
const FAKE_DNS: Record<string, string[]> = {
  'intranet.example': ['10.0.0.5'],
  'metadata.example': ['169.254.169.254'],
  'mapped.example': ['::ffff:10.0.0.1'],
  'v6private.example': ['fd12:3456::1'],
  // A public answer does not excuse a private one.
  'mixed.example': ['93.184.215.14', '192.168.1.10'],
};
const fakeLookup: HostLookup = async (hostname) => {
  const addresses = FAKE_DNS[hostname];
  if (!addresses) {
    throw new Error(`test DNS has no entry for ${hostname}`);
  }
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

async function failure(promise: Promise<unknown>): Promise<HttpGetError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpGetError) {
      return error;
    }
    throw error;
  }
  throw new Error('expected the fetch to fail');
}

describe(httpGet.name, () => {
  let server: http.Server;
  let base: string;
  let port: number;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://test');
      const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
      if (url.pathname === '/hello') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('hello world');
      } else if (url.pathname === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(100_000));
      } else if (url.pathname === '/utf8') {
        res.writeHead(200).end('ééé');
      } else if (url.pathname === '/host') {
        res.writeHead(200).end(req.headers.host);
      } else if (url.pathname === '/missing') {
        res.writeHead(404).end('nope');
      } else if (url.pathname === '/no-type') {
        res.writeHead(200).end('plain');
      } else if (url.pathname === '/redirect') {
        res.writeHead(302, { location: '/hello' }).end();
      } else if (url.pathname === '/redirect-to') {
        res.writeHead(307, { location: url.searchParams.get('to') ?? '/' }).end();
      } else if (chain) {
        const left = Number(chain[1]);
        if (left === 0) {
          res.writeHead(200).end('end of chain');
        } else {
          res.writeHead(301, { location: `/chain/${left - 1}` }).end();
        }
      } else if (url.pathname === '/loop') {
        res.writeHead(302, { location: '/loop' }).end();
      } else if (url.pathname === '/stall-body') {
        res.writeHead(200).write('partial');
      } else if (url.pathname !== '/hang') {
        res.writeHead(500).end();
      }
      // /hang never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const local: HttpGetOptions = { allowHosts: ['127.0.0.1'], lookup: fakeLookup, timeoutMs: 5_000 };

  describe('refusals', () => {
    it.each<[string, HttpGetErrorCode, string]>([
      [
        'http://127.0.0.1/',
        'forbidden_address',
        'refusing to fetch http://127.0.0.1/: 127.0.0.1 is a loopback address',
      ],
      ['http://127.1:8080/x', 'forbidden_address', '127.0.0.1 is a loopback address'],
      ['http://2130706433/', 'forbidden_address', '127.0.0.1 is a loopback address'],
      [
        'http://localhost/',
        'forbidden_address',
        'refusing to fetch http://localhost/: localhost is a loopback name',
      ],
      ['http://LocalHost./', 'forbidden_address', 'localhost is a loopback name'],
      ['http://api.localhost/', 'forbidden_address', 'api.localhost is a loopback name'],
      ['http://[::1]/', 'forbidden_address', '::1 is a loopback address'],
      ['http://10.1.2.3/', 'forbidden_address', '10.1.2.3 is a private address'],
      ['http://192.168.0.1/', 'forbidden_address', '192.168.0.1 is a private address'],
      ['http://172.16.5.5/', 'forbidden_address', '172.16.5.5 is a private address'],
      ['http://100.64.0.1/', 'forbidden_address', '100.64.0.1 is a carrier-grade NAT address'],
      [
        'http://169.254.169.254/latest/meta-data',
        'forbidden_address',
        'refusing to fetch http://169.254.169.254/latest/meta-data: 169.254.169.254 is a link-local address',
      ],
      ['http://[fe80::1]/', 'forbidden_address', 'fe80::1 is a link-local address'],
      ['http://[fc00::1]/', 'forbidden_address', 'fc00::1 is a private (unique local) address'],
      [
        'http://[::ffff:127.0.0.1]/',
        'forbidden_address',
        '::ffff:7f00:1 is a loopback address (IPv4-mapped 127.0.0.1)',
      ],
      ['http://0.0.0.0/', 'forbidden_address', '0.0.0.0 is an unspecified address'],
      ['http://[::]/', 'forbidden_address', ':: is an unspecified address'],
      ['http://224.0.0.1/', 'forbidden_address', '224.0.0.1 is a multicast address'],
      ['http://255.255.255.255/', 'forbidden_address', '255.255.255.255 is a broadcast address'],
      ['http://240.0.0.1/', 'forbidden_address', '240.0.0.1 is a reserved address'],
      [
        'http://intranet.example/',
        'forbidden_address',
        'intranet.example resolves to 10.0.0.5, a private address',
      ],
      ['http://metadata.example/', 'forbidden_address', 'resolves to 169.254.169.254, a link-local address'],
      ['http://mapped.example/', 'forbidden_address', 'resolves to ::ffff:10.0.0.1, a private address'],
      [
        'http://v6private.example/',
        'forbidden_address',
        'resolves to fd12:3456::1, a private (unique local)',
      ],
      [
        'http://mixed.example/',
        'forbidden_address',
        'mixed.example resolves to 192.168.1.10, a private address',
      ],
      ['file:///etc/passwd', 'invalid_url', 'only http and https URLs are allowed'],
      ['ftp://x', 'invalid_url', 'refusing to fetch ftp://x/: only http and https URLs are allowed'],
      [
        'http://user:pw@example.com',
        'invalid_url',
        'http://example.com/: URLs with credentials are not allowed',
      ],
      ['not a url', 'invalid_url', 'invalid URL: "not a url" is not a valid absolute URL'],
    ])('refuses %s (%s)', async (url, code, message) => {
      const error = await failure(httpGet({ url }, { lookup: fakeLookup }));
      expect(error).toMatchObject({ name: 'HttpGetError', code, retryable: false });
      expect(error.message).toContain(message);
    });

    it('never echoes URL credentials', async () => {
      const error = await failure(httpGet({ url: 'http://user:secret@example.com/' }));
      expect(error.message).not.toContain('secret');
    });

    it('refuses localhost and IP literals without consulting DNS', async () => {
      const lookup = jest.fn(fakeLookup);
      await failure(httpGet({ url: 'http://localhost/' }, { lookup }));
      await failure(httpGet({ url: 'http://127.0.0.1/' }, { lookup }));
      expect(lookup).not.toHaveBeenCalled();
    });

    it.each([{ max_bytes: 0 }, { max_bytes: 5_000_001 }, { max_bytes: 1.5 }])(
      'rejects input %j',
      async (extra) => {
        const error = await failure(httpGet({ url: `${base}/hello`, ...extra }, local));
        expect(error).toMatchObject({ code: 'invalid_url', message: expect.stringContaining('max_bytes') });
      },
    );

    it('reports a failed DNS lookup as a retryable network error', async () => {
      const error = await failure(httpGet({ url: 'http://unknown.example/' }, { lookup: fakeLookup }));
      expect(error).toMatchObject({ code: 'network_error', retryable: true });
      expect(error.message).toContain('cannot resolve unknown.example');
    });
  });

  describe('fetching (from a loopback server on the allow-list)', () => {
    it('returns status, content type and body', async () => {
      await expect(httpGet({ url: `${base}/hello` }, local)).resolves.toEqual({
        url: `${base}/hello`,
        final_url: `${base}/hello`,
        status: 200,
        content_type: 'text/plain; charset=utf-8',
        body: 'hello world',
        truncated: false,
        bytes: 11,
      });
    });

    it.each([
      ['/missing', 404, 'nope'],
      ['/no-type', 200, 'plain'],
    ])('returns %s as a result with status %p', async (path, status, body) => {
      const result = await httpGet({ url: `${base}${path}` }, local);
      expect(result).toMatchObject({ status, body });
      if (path === '/no-type') {
        expect(result.content_type).toBeNull();
      }
    });

    it.each([
      ['input max_bytes', { max_bytes: 100 }, {}, 100],
      ['operator maxBytes', {}, { maxBytes: 50 }, 50],
      ['the lower of both', { max_bytes: 100 }, { maxBytes: 50 }, 50],
    ])('truncates the body at %s', async (_label, input, opts, cap) => {
      const result = await httpGet({ url: `${base}/big`, ...input }, { ...local, ...opts });
      expect(result).toMatchObject({ status: 200, truncated: true, bytes: cap, body: 'x'.repeat(cap) });
    });

    it('does not flag a body that exactly fits the cap as truncated', async () => {
      const result = await httpGet({ url: `${base}/hello`, max_bytes: 11 }, local);
      expect(result).toMatchObject({ body: 'hello world', truncated: false, bytes: 11 });
    });

    it('decodes UTF-8 and drops a character cut in half by the cap', async () => {
      await expect(httpGet({ url: `${base}/utf8` }, local)).resolves.toMatchObject({ body: 'ééé', bytes: 6 });
      await expect(httpGet({ url: `${base}/utf8`, max_bytes: 3 }, local)).resolves.toMatchObject({
        body: 'é',
        bytes: 3,
        truncated: true,
      });
    });

    it('follows redirects', async () => {
      const result = await httpGet({ url: `${base}/redirect` }, local);
      expect(result).toMatchObject({
        url: `${base}/redirect`,
        final_url: `${base}/hello`,
        status: 200,
        body: 'hello world',
      });
    });

    it('follows exactly maxRedirects redirects', async () => {
      const result = await httpGet({ url: `${base}/chain/3` }, { ...local, maxRedirects: 3 });
      expect(result).toMatchObject({ final_url: `${base}/chain/0`, body: 'end of chain' });
    });

    it.each([
      ['a redirect loop', '/loop', {}],
      ['one redirect past the limit', '/chain/4', { maxRedirects: 3 }],
      ['any redirect with maxRedirects 0', '/redirect', { maxRedirects: 0 }],
    ])('refuses %s', async (_label, path, opts) => {
      const error = await failure(httpGet({ url: `${base}${path}` }, { ...local, ...opts }));
      expect(error).toMatchObject({ code: 'too_many_redirects', retryable: false });
      expect(error.message).toContain(`refusing to fetch ${base}${path}: more than`);
    });

    it.each([
      ['http://10.0.0.1/', '10.0.0.1 is a private address'],
      ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address'],
      ['http://localhost/', 'localhost is a loopback name'],
      ['http://intranet.example/', 'intranet.example resolves to 10.0.0.5'],
      ['ftp://files.example/', 'only http and https URLs are allowed'],
      ['http://user:pw@files.example/', 'URLs with credentials are not allowed'],
      ['http://[bad/', 'is not a valid absolute URL'],
    ])('re-checks every hop: refuses a redirect to %s', async (to, reason) => {
      const url = `${base}/redirect-to?to=${encodeURIComponent(to)}`;
      const error = await failure(httpGet({ url }, local));
      expect(error.code).toMatch(/^(forbidden_address|invalid_url)$/);
      expect(error.message).toContain(`(redirected from ${url})`);
      expect(error.message).toContain(reason);
    });

    it('connects to the vetted address and keeps the hostname in the Host header', async () => {
      // One lookup per hop: http.request gets the checked answer, so a rebinding DNS gets no second say.
      const lookup = jest.fn<ReturnType<HostLookup>, Parameters<HostLookup>>(async () => [
        { address: '127.0.0.1', family: 4 },
      ]);
      const result = await httpGet(
        { url: `http://App.Test:${port}/host` },
        { allowHosts: ['app.test'], lookup },
      );
      expect(result).toMatchObject({ status: 200, body: `app.test:${port}` });
      expect(lookup).toHaveBeenCalledTimes(1);
      expect(lookup).toHaveBeenCalledWith('app.test');
    });

    it('never connects to what a rebinding DNS answers after the check', async () => {
      // First answer one that fails inside the kernel (multicast: no packet leaves the machine;
      // the host is allowed so the answer is used as it is), every later one the local server: the
      // connection must go to the first answer only, never to the loopback server.
      let connections = 0;
      const count = (): void => {
        connections++;
      };
      server.on('connection', count);
      let calls = 0;
      const rebinding: HostLookup = async () =>
        calls++ === 0 ? [{ address: '224.0.0.1', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
      try {
        const error = await failure(
          httpGet(
            { url: `http://rebind.example:${port}/hello` },
            { lookup: rebinding, timeoutMs: 1_500, allowHosts: ['rebind.example'] },
          ),
        );
        expect(['network_error', 'timeout']).toContain(error.code);
        expect(calls).toBe(1);
        expect(connections).toBe(0);
      } finally {
        server.off('connection', count);
      }
    });

    it('times out against a server that never answers', async () => {
      const started = Date.now();
      const error = await failure(httpGet({ url: `${base}/hang` }, { ...local, timeoutMs: 200 }));
      expect(error).toMatchObject({ code: 'timeout', retryable: true });
      expect(error.message).toBe(`fetch of ${base}/hang timed out after 200 ms`);
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('times out while the body is still streaming', async () => {
      const error = await failure(httpGet({ url: `${base}/stall-body` }, { ...local, timeoutMs: 200 }));
      expect(error).toMatchObject({ code: 'timeout', retryable: true });
    });

    it("aborts when the caller's signal fires", async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const error = await failure(httpGet({ url: `${base}/hang` }, { ...local, signal: controller.signal }));
      expect(error).toMatchObject({ code: 'aborted', retryable: false });
    });

    it('does not start when the signal is already aborted', async () => {
      const error = await failure(
        httpGet({ url: `${base}/hello` }, { ...local, signal: AbortSignal.abort() }),
      );
      expect(error).toMatchObject({ code: 'aborted' });
    });

    it('reports a refused connection as a retryable network error', async () => {
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const closedPort = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const error = await failure(httpGet({ url: `http://127.0.0.1:${closedPort}/` }, local));
      expect(error).toMatchObject({ code: 'network_error', retryable: true });
      expect(error.message).toContain('ECONNREFUSED');
    });
  });
});

describe('httpGetTool', () => {
  it('describes its input as JSON Schema', () => {
    expect(httpGetTool).toMatchObject({ name: 'http_get', idempotent: true });
    expect(httpGetTool.inputJsonSchema).toEqual({
      type: 'object',
      properties: {
        url: { type: 'string', format: 'uri', description: expect.any(String) },
        max_bytes: { type: 'integer', minimum: 1, maximum: 5_000_000, description: expect.any(String) },
      },
      required: ['url'],
      additionalProperties: false,
    });
    const { $schema, ...fromZod } = z.toJSONSchema(httpGetInputSchema, { io: 'input' });
    expect($schema).toBeDefined();
    expect(httpGetTool.inputJsonSchema).toEqual(fromZod);
  });

  it.each([
    [{ url: 'https://example.com/a?b=c' }, true],
    [{ url: 'http://example.com', max_bytes: 10 }, true],
    [{ url: 'ftp://example.com' }, false],
    [{ url: 'example.com' }, false],
    [{ url: 'http://example.com', extra: 1 }, false],
  ])('schema: %j → valid: %p', (input, valid) => {
    expect(httpGetInputSchema.safeParse(input).success).toBe(valid);
  });
});
