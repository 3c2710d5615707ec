import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpGetError } from './http-get.tool';
import { httpRequest, httpRequestTool } from './http-request.tool';

// A real HTTP server on 127.0.0.1, reachable only because the test allows that host explicitly.

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let other: Server;
let base: string;
let otherBase: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (req.url === '/see-other') {
        res.writeHead(303, { location: '/echo' }).end();
      } else if (req.url === '/temporary') {
        res.writeHead(307, { location: '/echo' }).end();
      } else if (req.url === '/to-other-origin') {
        res.writeHead(307, { location: `${otherBase}/echo` }).end();
      } else if (req.url === '/to-private') {
        res.writeHead(302, { location: 'http://10.0.0.1/' }).end();
      } else {
        res
          .writeHead(201, { 'content-type': 'application/json' })
          .end(JSON.stringify({ method: req.method, body }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A second origin (another loopback address), recording what reaches it.
  other = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push({ method: req.method, url: `other:${req.url}`, headers: req.headers, body: '' });
    res.writeHead(200).end('other');
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.2', r));
  otherBase = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await new Promise((r) => other.close(r));
});

const allow = { allowHosts: ['127.0.0.1', '127.0.0.2'] };

describe(httpRequest.name, () => {
  beforeEach(() => {
    seen.length = 0;
  });

  it('sends a JSON body with its content type and the task id as Idempotency-Key', async () => {
    const res = await httpRequest(
      { url: `${base}/echo`, method: 'POST', body: { a: 1 }, headers: { 'X-Trace': 't1' } },
      { ...allow, idempotencyKey: 'task-123' },
    );
    expect(res).toMatchObject({ status: 201, method: 'POST', content_type: 'application/json' });
    expect(JSON.parse(res.body)).toEqual({ method: 'POST', body: '{"a":1}' });
    expect(seen[0].headers['content-type']).toBe('application/json');
    expect(seen[0].headers['idempotency-key']).toBe('task-123');
    expect(seen[0].headers['x-trace']).toBe('t1');
  });

  it('keeps a caller-set Idempotency-Key and sends none on GET', async () => {
    await httpRequest(
      { url: `${base}/echo`, method: 'PUT', body: 'x', headers: { 'Idempotency-Key': 'mine' } },
      { ...allow, idempotencyKey: 'task' },
    );
    await httpRequest({ url: `${base}/echo` }, { ...allow, idempotencyKey: 'task' });
    expect(seen[0].headers['idempotency-key']).toBe('mine');
    expect(seen[1].headers['idempotency-key']).toBeUndefined();
    expect(seen[1].method).toBe('GET');
  });

  it('follows 303 as a GET without the body, 307 with the same method and body', async () => {
    const other = await httpRequest({ url: `${base}/see-other`, method: 'POST', body: 'payload' }, allow);
    expect(JSON.parse(other.body)).toEqual({ method: 'GET', body: '' });
    seen.length = 0;
    const temporary = await httpRequest({ url: `${base}/temporary`, method: 'POST', body: 'payload' }, allow);
    expect(JSON.parse(temporary.body)).toEqual({ method: 'POST', body: 'payload' });
    expect(seen.map((s) => s.method)).toEqual(['POST', 'POST']);
  });

  it.each([
    ['a loopback address', { url: 'http://127.0.0.1:9/' }, 'forbidden_address'],
    [
      'a metadata address',
      { url: 'http://169.254.169.254/latest', method: 'POST' as const },
      'forbidden_address',
    ],
    ['a Host header', { url: 'http://example.com/', headers: { Host: 'internal' } }, 'invalid_url'],
    ['a GET with a body', { url: 'http://example.com/', body: 'x' }, 'invalid_url'],
    ['an unknown method', { url: 'http://example.com/', method: 'TRACE' as never }, 'invalid_url'],
    ['a file URL', { url: 'file:///etc/passwd' }, 'invalid_url'],
  ])('refuses %s', async (_name, input, code) => {
    const err = await httpRequest(input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpGetError);
    expect((err as HttpGetError).code).toBe(code);
  });

  it('drops credentials on a redirect to another origin, keeps them on the same origin', async () => {
    const headers = { Authorization: 'Bearer secret', Cookie: 'sid=1', 'X-Trace': 't' };
    await httpRequest({ url: `${base}/to-other-origin`, method: 'GET', headers }, allow);
    await httpRequest({ url: `${base}/temporary`, method: 'GET', headers }, allow);
    const [, offOrigin, , sameOrigin] = seen;
    expect(offOrigin.url).toBe('other:/echo');
    expect(offOrigin.headers.authorization).toBeUndefined();
    expect(offOrigin.headers.cookie).toBeUndefined();
    expect(offOrigin.headers['x-trace']).toBe('t');
    expect(sameOrigin.url).toBe('/echo');
    expect(sameOrigin.headers.authorization).toBe('Bearer secret');
    expect(sameOrigin.headers.cookie).toBe('sid=1');
  });

  it('refuses a redirect from an allowed host to a private one', async () => {
    const err = await httpRequest({ url: `${base}/to-private`, method: 'POST', body: 'x' }, allow).catch(
      (e: unknown) => e,
    );
    expect((err as HttpGetError).code).toBe('forbidden_address');
  });

  it('declares itself not idempotent, with a JSON schema of its arguments', () => {
    expect(httpRequestTool.idempotent).toBe(false);
    expect(Object.keys((httpRequestTool.inputJsonSchema as { properties: object }).properties)).toEqual([
      'url',
      'method',
      'headers',
      'body',
      'timeout_ms',
      'max_bytes',
    ]);
  });
});
