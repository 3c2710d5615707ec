import { type Server, createServer } from 'node:http';
import { type AddressInfo, type Server as NetServer, createServer as createNetServer } from 'node:net';
import type { Action } from '@switchyard/contracts';
import { DnsTestServer, TestStack, waitFor } from '@switchyard/testing';

// SSRF end to end: a scripted planner asks the real tool-executor's `http_request` to fetch each URL
// of a corpus aimed at a canary listening on 127.0.0.1. Every one must be refused (an action
// error that goes to reflection, the run still answers) and the canary must never see a
// connection. A redirector on 127.0.0.2 — the only host the operator allows — checks that the
// rule is applied again on every redirect hop, and a control fetch shows the path itself works.
// Host names are answered by the test's own DNS server (SWITCHYARD_DNS_SERVERS), so nothing here
// depends on what the machine's resolver knows.

let stack: TestStack;
let dns: DnsTestServer;
let canary: NetServer;
let redirector: Server;
let canaryPort: number;
let redirectorBase: string;
let canaryConnections = 0;
const redirectorHits: string[] = [];

function listen(server: NetServer | Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

beforeAll(async () => {
  canary = createNetServer((socket) => {
    canaryConnections++;
    socket.destroy();
  });
  canaryPort = await listen(canary, '127.0.0.1');
  const loopback = `http://127.0.0.1:${canaryPort}`;
  const targets: Record<string, string> = {
    '/to-canary': `${loopback}/`,
    '/to-mapped': `http://[::ffff:7f00:1]:${canaryPort}/`,
    '/to-decimal': `http://2130706433:${canaryPort}/`,
    '/to-name': `http://localhost:${canaryPort}/`,
    '/to-private': 'http://10.0.0.1/',
    '/to-metadata': 'http://169.254.169.254/latest/meta-data',
    '/to-file': 'file:///etc/passwd',
  };
  redirector = createServer((req, res) => {
    redirectorHits.push(req.url ?? '');
    const to = targets[req.url ?? ''];
    if (to) {
      res.writeHead(302, { location: to }).end();
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('the redirector answers');
    }
  });
  redirectorBase = `http://127.0.0.2:${await listen(redirector, '127.0.0.2')}`;
  dns = await DnsTestServer.start({ 'intranet.sy.test': ['127.0.0.1'] });
  stack = await TestStack.start({
    script: 'apps/tool-executor/test/fixtures/ssrf.script.json',
    env: { SWITCHYARD_HTTP_ALLOW_HOSTS: '127.0.0.2', SWITCHYARD_DNS_SERVERS: dns.address },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await dns?.close();
  await new Promise((r) => canary?.close(r));
  await new Promise((r) => redirector?.close(r));
});

/** Runs `<fetch:url>` to its end; answers the run's status and its http_request action. */
async function fetchThroughAgent(url: string): Promise<{ status: string; action: Action; nodes: string[] }> {
  const res = await stack.api('POST', '/v1/runs', { input: { prompt: `<fetch:${url}>` } });
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  let status = '';
  await waitFor(`the run fetching ${url} to end`, async () => {
    status = (await stack.api('GET', `/v1/runs/${runId}`)).body.status;
    return ['succeeded', 'failed', 'cancelled'].includes(status);
  });
  const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as Action[];
  const action = actions.find((a) => a.node === 'http_request');
  expect(action).toBeDefined();
  return { status, action: action as Action, nodes: actions.map((a) => a.node) };
}

describe('http_request refuses every way to reach a local address', () => {
  const p = () => canaryPort;
  const corpus: [string, () => string, string, RegExp][] = [
    ['loopback', () => `http://127.0.0.1:${p()}/`, 'forbidden_address', /127\.0\.0\.1 is a loopback address/],
    ['short form', () => `http://127.1:${p()}/`, 'forbidden_address', /loopback/],
    ['decimal', () => `http://2130706433:${p()}/`, 'forbidden_address', /loopback/],
    ['hexadecimal', () => `http://0x7f000001:${p()}/`, 'forbidden_address', /loopback/],
    ['octal', () => `http://0177.0.0.1:${p()}/`, 'forbidden_address', /loopback/],
    ['mixed hex/octal parts', () => `http://0x7f.0.0.01:${p()}/`, 'forbidden_address', /loopback/],
    ['IPv6 loopback', () => `http://[::1]:${p()}/`, 'forbidden_address', /::1 is a loopback address/],
    [
      'IPv4-mapped IPv6',
      () => `http://[::ffff:127.0.0.1]:${p()}/`,
      'forbidden_address',
      /IPv4-mapped 127\.0\.0\.1/,
    ],
    [
      'IPv4-mapped, long form',
      () => `http://[0:0:0:0:0:ffff:7f00:1]:${p()}/`,
      'forbidden_address',
      /IPv4-mapped/,
    ],
    ['unspecified 0.0.0.0', () => `http://0.0.0.0:${p()}/`, 'forbidden_address', /unspecified/],
    ['localhost', () => `http://localhost:${p()}/`, 'forbidden_address', /loopback name/],
    [
      'a hostname resolving locally',
      () => `http://intranet.sy.test:${p()}/`,
      'forbidden_address',
      /intranet\.sy\.test resolves to 127\.0\.0\.1, a loopback address/,
    ],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data', 'forbidden_address', /link-local/],
    ['carrier-grade NAT', () => 'http://100.64.0.1/', 'forbidden_address', /carrier-grade NAT/],
    // Refused by the tool's argument schema before any fetch code runs.
    [
      'file:',
      () => 'file:///etc/passwd',
      'invalid_tool_input',
      /url: must be an absolute http:\/\/ or https:\/\/ URL/,
    ],
    [
      'gopher:',
      () => `gopher://127.0.0.1:${p()}/`,
      'invalid_tool_input',
      /url: must be an absolute http:\/\/ or https:\/\/ URL/,
    ],
    ['redirect to loopback', () => `${redirectorBase}/to-canary`, 'forbidden_address', /redirect/],
    ['redirect to mapped loopback', () => `${redirectorBase}/to-mapped`, 'forbidden_address', /IPv4-mapped/],
    ['redirect to decimal loopback', () => `${redirectorBase}/to-decimal`, 'forbidden_address', /loopback/],
    ['redirect to localhost', () => `${redirectorBase}/to-name`, 'forbidden_address', /loopback name/],
    ['redirect to a private address', () => `${redirectorBase}/to-private`, 'forbidden_address', /private/],
    ['redirect to metadata', () => `${redirectorBase}/to-metadata`, 'forbidden_address', /link-local/],
    ['redirect to file:', () => `${redirectorBase}/to-file`, 'invalid_url', /only http and https/],
  ];

  it.each(corpus)('refuses %s as an observation for reflection', async (_name, url, code, message) => {
    const { status, action, nodes } = await fetchThroughAgent(url());
    expect(action.error).toMatchObject({ code });
    expect(action.error?.message).toMatch(message);
    expect(action.next).toEqual(['reflection']);
    expect(nodes).toContain('reflection');
    expect(status).toBe('succeeded');
  });

  it('checked every redirect on its own hop: the redirector was reached first', () => {
    for (const path of [
      '/to-canary',
      '/to-mapped',
      '/to-decimal',
      '/to-name',
      '/to-private',
      '/to-metadata',
    ]) {
      expect(redirectorHits).toContain(path);
    }
  });

  it('fetches from the allowed host (the path itself works)', async () => {
    const { action } = await fetchThroughAgent(`${redirectorBase}/ok`);
    expect(action.error).toBeUndefined();
    expect(action.result).toMatchObject({ status: 200, body: 'the redirector answers' });
  });

  it('let no connection reach the canary, which does count connections', async () => {
    expect(canaryConnections).toBe(0);
    await fetch(`http://127.0.0.1:${canaryPort}/`).catch(() => undefined);
    await waitFor('the canary to count a direct connection', async () => canaryConnections === 1);
  });
});
