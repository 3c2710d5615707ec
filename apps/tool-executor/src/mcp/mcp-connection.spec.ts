import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { freePort, sleep, waitFor } from '@switchyard/testing';
import { McpConnection, type McpServerSpec } from './mcp-connection';
import { McpCallError } from './mcp-errors';

// McpConnection against the real reference servers from npm, run as child processes: the
// filesystem server over stdio, the everything server over stdio and streamable HTTP.

jest.setTimeout(60_000);

const MODULES = resolve(__dirname, '../../../../node_modules/@modelcontextprotocol');
const FS_BIN = join(MODULES, 'server-filesystem/dist/index.js');
const EVERYTHING_BIN = join(MODULES, 'server-everything/dist/index.js');
const NODE = process.execPath;

let dir: string;
const open: McpConnection[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sy-mcp-conn-'));
  writeFileSync(join(dir, 'hello.txt'), 'hello from the test');
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function spec(over: Partial<McpServerSpec>): McpServerSpec {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    tenantId: '00000000-0000-4000-8000-000000000002',
    name: 'test',
    transport: 'stdio',
    command: NODE,
    args: [EVERYTHING_BIN],
    env: {},
    toolTypes: {},
    url: null,
    headers: {},
    timeoutMs: 10_000,
    maxOutputBytes: 10_000,
    version: 'v1',
    ...over,
  };
}

function connect(s: McpServerSpec, allow: string[][] = [[NODE]], hosts: string[] = []) {
  const lists: Tool[][] = [];
  const conn = new McpConnection(s, {
    stdioAllow: allow,
    httpAllowHosts: hosts,
    baseBackoffMs: 100,
    maxBackoffMs: 1000,
    onTools: (t) => lists.push(t),
  });
  open.push(conn);
  conn.start();
  return { conn, lists };
}

async function callError(p: Promise<unknown>): Promise<McpCallError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpCallError);
  return err as McpCallError;
}

const signal = () => new AbortController().signal;

describe('McpConnection (stdio, server-filesystem)', () => {
  it('lists the tools and reads a file of the allowed directory', async () => {
    const { conn, lists } = connect(spec({ name: 'fs', args: [FS_BIN, dir] }), [[NODE, FS_BIN]]);
    await waitFor('the tool list', async () => lists.length > 0);
    expect(lists[0].map((t) => t.name)).toEqual(expect.arrayContaining(['read_text_file', 'list_directory']));
    const result = await conn.call('read_text_file', { path: join(dir, 'hello.txt') }, signal());
    expect(result.content).toEqual([{ type: 'text', text: 'hello from the test' }]);
    const outside = await conn.call('read_text_file', { path: '/etc/hostname' }, signal());
    expect(outside.isError).toBe(true);
  });

  it('refuses a command the allow-list does not cover (an interpreter with another script)', async () => {
    const { conn } = connect(spec({ name: 'fs', args: [EVERYTHING_BIN] }), [[NODE, FS_BIN]]);
    const err = await callError(conn.call('echo', { message: 'x' }, signal()));
    expect(err.code).toBe('mcp_unavailable');
    expect(err.message).toContain('not in SWITCHYARD_MCP_STDIO_ALLOW');
    expect(conn.status).toBe('refused');
  });
});

describe('McpConnection (stdio, server-everything)', () => {
  it('times a hanging tool out, restarts the server, and the next call works', async () => {
    const { conn, lists } = connect(spec({ timeoutMs: 1500 }));
    await waitFor('the tool list', async () => lists.length > 0);
    const firstPid = conn.pid;
    const started = Date.now();
    const err = await callError(
      conn.call('trigger-long-running-operation', { duration: 30, steps: 2 }, signal()),
    );
    expect(err.code).toBe('mcp_timeout');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(conn.restarts).toBe(1);
    // The new process lists its tools once it is up (a call made before then waits at most the
    // call's own 1.5 s for it, which a loaded 2-core machine's node start-up can exceed).
    await waitFor('the restarted server', async () => lists.length === 2);
    const echo = await conn.call('echo', { message: 'after the restart' }, signal());
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: after the restart' }]);
    expect(conn.pid).not.toBe(firstPid);
    expect(lists.length).toBe(2);
  });

  it('restarts a server process that died, with back-off', async () => {
    const { conn, lists } = connect(spec({}));
    await waitFor('the tool list', async () => lists.length > 0);
    process.kill(conn.pid as number, 'SIGKILL');
    await waitFor('the restart', async () => conn.restarts === 1);
    const echo = await conn.call('echo', { message: 'alive' }, signal());
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: alive' }]);
  });

  it('keeps retrying a server that cannot start, and says why', async () => {
    const { conn } = connect(spec({ args: [join(dir, 'missing.js')], timeoutMs: 1500 }), [[NODE]]);
    await waitFor('two restarts', async () => conn.restarts >= 2);
    const err = await callError(conn.call('echo', { message: 'x' }, signal()));
    expect(err.code).toBe('mcp_unavailable');
    expect(err.message).toMatch(/could not connect|connection closed/);
  });

  it('passes a cancel through: the call rejects with the signal reason at once', async () => {
    const { conn, lists } = connect(spec({}));
    await waitFor('the tool list', async () => lists.length > 0);
    const ac = new AbortController();
    const call = conn.call('trigger-long-running-operation', { duration: 30, steps: 2 }, ac.signal);
    await sleep(200);
    ac.abort(new Error('run cancelled'));
    await expect(call).rejects.toThrow('run cancelled');
    expect(conn.restarts).toBe(0);
  });
});

describe('McpConnection (streamable HTTP, server-everything)', () => {
  let server: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    server = spawn(NODE, [EVERYTHING_BIN, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: 'ignore',
    });
    await waitFor('the HTTP server', async () =>
      fetch(url, { method: 'GET' }).then(
        () => true,
        () => false,
      ),
    );
  });
  afterAll(() => {
    server?.kill('SIGKILL');
  });

  it('connects to an allowed host and calls a tool', async () => {
    const { conn, lists } = connect(
      spec({ transport: 'http', command: null, args: [], url }),
      [],
      ['127.0.0.1'],
    );
    await waitFor('the tool list', async () => lists.length > 0);
    expect(lists[0].map((t) => t.name)).toContain('echo');
    const echo = await conn.call('echo', { message: 'over http' }, signal());
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: over http' }]);
  });

  it('refuses a loopback server the operator did not allow', async () => {
    const { conn } = connect(
      spec({ transport: 'http', command: null, args: [], url, timeoutMs: 1000 }),
      [],
      [],
    );
    const err = await callError(conn.call('echo', { message: 'x' }, signal()));
    expect(err.code).toBe('mcp_unavailable');
    expect(err.message).toContain('127.0.0.1 is a loopback address');
  });
});
