import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Action } from '@switchyard/contracts';
import { DnsTestServer, TestStack, failingPorts, waitFor } from '@switchyard/testing';

// Socket failures of every network tool through the real tool-executor: a host name answered by
// the test's own DNS server with an address that has no route (224.0.0.1: connect() fails at once,
// inside the kernel, as every address does in a network namespace without routes — the case that
// crashed the service on every redelivery), a refused port and a reset connection on loopback.
// Each becomes an observation on the action (network_error / sql_connection_error), the run goes on
// to an answer, and the tool-executor is the same process, still ready, after all of them.
// Nothing here leaves the machine.

let stack: TestStack;
let dns: DnsTestServer;
let ports: Awaited<ReturnType<typeof failingPorts>>;
let resetPort: number;
let closedPort: number;
let toolExecutorPid: number | undefined;

beforeAll(async () => {
  ports = await failingPorts();
  ({ closedPort, resetPort } = ports);
  dns = await DnsTestServer.start({ 'noroute.sy.test': ['224.0.0.1'], 'box.sy.test': ['127.0.0.1'] });
  const names = 'noroute.sy.test,box.sy.test';
  stack = await TestStack.start({
    script: 'apps/tool-executor/test/fixtures/network.script.json',
    env: {
      SWITCHYARD_DNS_SERVERS: dns.address,
      SWITCHYARD_HTTP_ALLOW_HOSTS: names,
      SWITCHYARD_MCP_HTTP_ALLOW_HOSTS: names,
      SWITCHYARD_MCP_POLL_MS: '300',
      SWITCHYARD_SQL_ALLOW_HOSTS: '224.0.0.1,127.0.0.1',
      // A task whose service died is delivered again after 3 s (the receipt case below).
      SWITCHYARD_ACK_WAIT_MS: '3000',
    },
  });
  toolExecutorPid = stack.pid('tool-executor');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await dns?.close();
  await ports?.close();
});

async function toolExecutorAlive(): Promise<void> {
  expect(stack.pid('tool-executor')).toBe(toolExecutorPid);
  expect(() => process.kill(toolExecutorPid as number, 0)).not.toThrow();
  const ready = await fetch(`http://127.0.0.1:${stack.ports.get('tool-executor')}/readyz`);
  expect(ready.status).toBe(200);
  expect(stack.log('tool-executor')).not.toMatch(/Unhandled 'error' event/);
}

/** Runs the prompt to its end; answers the run's status and the named tool's action. */
async function runTool(prompt: string, tool: string): Promise<{ status: string; action: Action }> {
  const res = await stack.api('POST', '/v1/runs', { input: { prompt } });
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  let status = '';
  await waitFor(
    `the run "${prompt}" to end`,
    async () => {
      status = (await stack.api('GET', `/v1/runs/${runId}`)).body.status;
      return ['succeeded', 'failed', 'cancelled'].includes(status);
    },
    60_000,
  );
  const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as Action[];
  const action = actions.find((a) => a.node === tool);
  expect(action).toBeDefined();
  return { status, action: action as Action };
}

const targets: [string, () => string, RegExp][] = [
  ['no route (connect fails synchronously)', () => 'noroute.sy.test:80', /ENETUNREACH/],
  ['refused', () => `box.sy.test:${closedPort}`, /ECONNREFUSED/],
  ['reset', () => `box.sy.test:${resetPort}`, /ECONNRESET|socket hang up/],
];

describe.each(targets)('a host whose connection fails: %s', (_name, hostPort, cause) => {
  it.each([
    ['http_get', '<get:http://%s/page>'],
    ['http_request', '<fetch:http://%s/orders>'],
  ])(
    '%s answers network_error and the service keeps serving',
    async (tool, template) => {
      const { status, action } = await runTool(template.replace('%s', hostPort()), tool);
      expect(action.error).toMatchObject({ code: 'network_error' });
      expect(action.error?.message).toMatch(cause);
      expect(action.next).toEqual(['reflection']);
      expect(status).toBe('succeeded');
      await toolExecutorAlive();
    },
    90_000,
  );
});

describe('sql_query against data sources that cannot be reached', () => {
  it.each([
    ['no route', 'noroute-db', () => 'postgres://u:p@224.0.0.1:5432/db', /ENETUNREACH/],
    ['refused', 'refused-db', () => `postgres://u:p@127.0.0.1:${closedPort}/db`, /ECONNREFUSED/],
    ['reset', 'reset-db', () => `postgres://u:p@127.0.0.1:${resetPort}/db`, /ECONNRESET|terminated|closed/i],
  ])(
    '%s: sql_connection_error, the service keeps serving',
    async (_name, ds, dsn, cause) => {
      const created = await stack.api('POST', '/v1/data-sources', { name: ds, kind: 'postgres', dsn: dsn() });
      expect(created.status).toBe(201);
      const { status, action } = await runTool(`<sql:${ds}>`, 'sql_query');
      expect(action.error).toMatchObject({ code: 'sql_connection_error' });
      expect(action.error?.message).toMatch(cause);
      expect(status).toBe('succeeded');
      await toolExecutorAlive();
    },
    90_000,
  );
});

describe('MCP servers over HTTP that cannot be reached', () => {
  it.each([
    ['no route', 'noroute', () => 'http://noroute.sy.test/mcp'],
    ['refused', 'refused', () => `http://box.sy.test:${closedPort}/mcp`],
    ['reset', 'reset', () => `http://box.sy.test:${resetPort}/mcp`],
  ])(
    '%s: the server offers no tools, the tool-executor keeps serving',
    async (_name, name, url) => {
      const created = await stack.api('POST', '/v1/mcp-servers', {
        name,
        transport: 'http',
        url: url(),
        timeout_ms: 1000,
      });
      expect(created.status).toBe(201);
      await waitFor(`the tool-executor to try ${name}`, async () =>
        stack.log('tool-executor').includes(`McpConnection:${name}`),
      );
      const server = await stack.api('GET', `/v1/mcp-servers/${created.body.id}`);
      expect(server.body.tools).toEqual([]);
      await toolExecutorAlive();
    },
    60_000,
  );
});

// Last: it replaces the tool-executor process.
describe('a POST whose service dies mid-call', () => {
  it('reaches its target once: the redelivered task is not sent again (tool receipt)', async () => {
    let posts = 0;
    let arrived!: () => void;
    const arrival = new Promise<void>((r) => (arrived = r));
    // Takes the order and never answers: the tool-executor is killed while it waits.
    const target = createServer((req) => {
      posts++;
      req.resume();
      arrived();
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const port = (target.address() as AddressInfo).port;
    try {
      const res = await stack.api('POST', '/v1/runs', {
        input: { prompt: `<fetch:http://box.sy.test:${port}/orders>` },
      });
      expect(res.status).toBe(202);
      await arrival;
      stack.kill('tool-executor');
      await stack.restart('tool-executor');
      let status = '';
      await waitFor(
        'the run to end',
        async () => {
          status = (await stack.api('GET', `/v1/runs/${res.body.run_id}`)).body.status;
          return ['succeeded', 'failed', 'cancelled'].includes(status);
        },
        60_000,
      );
      const actions = (await stack.api('GET', `/v1/runs/${res.body.run_id}/actions`)).body
        .actions as Action[];
      const call = actions.find((a) => a.node === 'http_request');
      expect(call?.error).toMatchObject({ code: 'tool_outcome_unknown' });
      expect(call?.error?.message).toMatch(/not safe to repeat, so it was not called again/);
      expect(status).toBe('succeeded');
      expect(posts).toBe(1);
    } finally {
      target.closeAllConnections();
      target.close();
    }
  }, 90_000);
});
