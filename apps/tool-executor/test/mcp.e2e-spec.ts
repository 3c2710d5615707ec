import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect } from 'nats';
import { type Action, ActionSchema, NODE_REGISTRY_BUCKET } from '@switchyard/contracts';
import { TestStack, freePort, waitFor } from '@switchyard/testing';

// MCP servers as tools, end to end against the real reference servers from npm: the filesystem
// server over stdio (spawned by the tool-executor, allowed by SWITCHYARD_MCP_STDIO_ALLOW) and the
// everything server over streamable HTTP (started here). Tenants register them through the
// gateway; their tools become nodes `mcp.<server>.<tool>` that the planner calls.

const MODULES = resolve(__dirname, '../../../node_modules/@modelcontextprotocol');
const FS_BIN = join(MODULES, 'server-filesystem/dist/index.js');
const EVERYTHING_BIN = join(MODULES, 'server-everything/dist/index.js');
const NODE = process.execPath;
const ADMIN = 'admin-token-for-the-mcp-e2e';

let stack: TestStack;
let dir: string;
let everything: ChildProcess;
let everythingUrl: string;
let otherKey: string;
const servers: Record<string, string> = {};

const asOther = (method: string, path: string, body?: unknown) =>
  stack.api(method, path, body, { Authorization: `Bearer ${otherKey}` });

async function toolNames(as: 'default' | 'other' = 'default'): Promise<string[]> {
  const res = as === 'default' ? await stack.api('GET', '/v1/tools') : await asOther('GET', '/v1/tools');
  expect(res.status).toBe(200);
  return (res.body.tools as { name: string }[]).map((t) => t.name);
}

async function run(prompt: string): Promise<{ status: string; actions: Action[] }> {
  const res = await stack.api('POST', '/v1/runs', { input: { prompt } });
  expect(res.status).toBe(202);
  let status = '';
  await waitFor(`the run "${prompt}" to end`, async () => {
    status = (await stack.api('GET', `/v1/runs/${res.body.run_id}`)).body.status;
    return ['succeeded', 'failed', 'cancelled'].includes(status);
  });
  const actions = (await stack.api('GET', `/v1/runs/${res.body.run_id}/actions`)).body.actions as Action[];
  for (const a of actions) {
    expect(ActionSchema.safeParse(a).success).toBe(true);
  }
  return { status, actions };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sy-mcp-e2e-'));
  writeFileSync(join(dir, 'hello.txt'), 'hello from the e2e test');
  writeFileSync(join(dir, 'big.txt'), 'x'.repeat(5000));
  const port = await freePort();
  everythingUrl = `http://127.0.0.1:${port}/mcp`;
  everything = spawn(NODE, [EVERYTHING_BIN, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: 'ignore',
  });
  await waitFor('the everything server', () =>
    fetch(everythingUrl).then(
      () => true,
      () => false,
    ),
  );
  stack = await TestStack.start({
    script: 'apps/tool-executor/test/fixtures/mcp.script.json',
    env: {
      SWITCHYARD_MCP_STDIO_ALLOW: `${NODE} ${FS_BIN}`,
      SWITCHYARD_MCP_HTTP_ALLOW_HOSTS: '127.0.0.1',
      SWITCHYARD_MCP_POLL_MS: '500',
      SWITCHYARD_ADMIN_TOKEN: ADMIN,
    },
  });
  otherKey = (await stack.newTenant('other', ADMIN)).key;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  everything?.kill('SIGKILL');
  if (dir) {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('MCP servers: registration', () => {
  it('refuses stdio commands the operator did not allow, private URLs and bad names', async () => {
    const shell = await stack.api('POST', '/v1/mcp-servers', {
      name: 'sh',
      transport: 'stdio',
      command: '/bin/sh',
    });
    expect(shell.status).toBe(400);
    expect(shell.body.error.message).toContain('SWITCHYARD_MCP_STDIO_ALLOW');
    // The interpreter is allowed only with the filesystem server's script.
    const other = await stack.api('POST', '/v1/mcp-servers', {
      name: 'sneaky',
      transport: 'stdio',
      command: NODE,
      args: ['-e', 'console.log(1)'],
    });
    expect(other.status).toBe(400);
    const priv = await stack.api('POST', '/v1/mcp-servers', {
      name: 'internal',
      transport: 'http',
      url: 'http://10.1.2.3/mcp',
    });
    expect(priv.status).toBe(400);
    expect(priv.body.error.message).toContain('private');
    const badTypes = await stack.api('POST', '/v1/mcp-servers', {
      name: 'typed',
      transport: 'http',
      url: everythingUrl,
      tool_types: { echo: ['answer'] },
    });
    expect(badTypes.status).toBe(400);
    expect(JSON.stringify(badTypes.body.error)).toContain('tool_types.echo');
    const bad = await stack.api('POST', '/v1/mcp-servers', {
      name: 'Bad__Name',
      transport: 'http',
      url: everythingUrl,
    });
    expect(bad.status).toBe(400);
  });

  it('registers a stdio and an http server; env and headers are write-only and sealed', async () => {
    const fs = await stack.api('POST', '/v1/mcp-servers', {
      name: 'fs',
      transport: 'stdio',
      command: NODE,
      args: [FS_BIN, dir],
      env: { FS_TOKEN: 's3cr3t-env-value' },
      max_output_bytes: 1000,
      tool_types: { write_file: ['output'] },
    });
    expect(fs.status).toBe(201);
    expect(fs.body).toMatchObject({
      name: 'fs',
      transport: 'stdio',
      command: NODE,
      args: [FS_BIN, dir],
      env_keys: ['FS_TOKEN'],
      max_output_bytes: 1000,
      enabled: true,
      tool_types: { write_file: ['output'] },
    });
    expect(JSON.stringify(fs.body)).not.toContain('s3cr3t');
    servers['fs'] = fs.body.id;

    const ev = await stack.api('POST', '/v1/mcp-servers', {
      name: 'everything',
      transport: 'http',
      url: everythingUrl,
      headers: { 'X-Api-Token': 'hdr-s3cr3t' },
      timeout_ms: 2000,
    });
    expect(ev.status).toBe(201);
    expect(ev.body.header_names).toEqual(['X-Api-Token']);
    expect(JSON.stringify(ev.body)).not.toContain('hdr-s3cr3t');
    servers['everything'] = ev.body.id;

    const rows = await stack.sql<{ env_sealed: string | null; headers_sealed: string | null }>(
      'SELECT env_sealed, headers_sealed FROM mcp_servers',
    );
    expect(JSON.stringify(rows)).not.toMatch(/s3cr3t/);
    expect(rows.some((r) => r.env_sealed?.startsWith('v1:'))).toBe(true);

    // Names are global: another tenant cannot take one.
    const taken = await asOther('POST', '/v1/mcp-servers', {
      name: 'fs',
      transport: 'http',
      url: everythingUrl,
    });
    expect(taken.status).toBe(409);
  });

  it('lists the MCP tools as nodes to the owning tenant only', async () => {
    await waitFor('the MCP tools in /v1/tools', async () => {
      const names = await toolNames();
      // A server's tools are registered one by one: wait for the ones checked below.
      return [
        'mcp.fs.read_text_file',
        'mcp.fs.write_file',
        'mcp.everything.echo',
        'mcp.everything.trigger-long-running-operation',
      ].every((n) => names.includes(n));
    });
    const tools = (await stack.api('GET', '/v1/tools')).body.tools as {
      name: string;
      description: string;
      input_schema: { properties?: Record<string, unknown> };
      service: string;
      idempotent: boolean;
    }[];
    const read = tools.find((t) => t.name === 'mcp.fs.read_text_file');
    expect(read).toMatchObject({ service: 'tool-executor', idempotent: true });
    expect(read?.description).toMatch(/^\[MCP fs\] /);
    expect(Object.keys(read?.input_schema.properties ?? {})).toContain('path');
    expect(tools.map((t) => t.name)).toContain('mcp.everything.trigger-long-running-operation');
    // Seed 003's tool types: write_file was declared an output tool, the others are call tools.
    expect(tools.find((t) => t.name === 'mcp.fs.write_file')).toMatchObject({ types: ['output'] });
    expect(read).toMatchObject({ types: ['call'] });
    expect(tools.find((t) => t.name === 'calculator')).toMatchObject({ types: ['call'] });

    const others = await toolNames('other');
    expect(others).toContain('calculator');
    expect(others.filter((n) => n.startsWith('mcp.'))).toEqual([]);
    expect((await asOther('GET', '/v1/mcp-servers')).body.servers).toEqual([]);
    expect((await asOther('DELETE', `/v1/mcp-servers/${servers['fs']}`)).status).toBe(404);

    const mine = await stack.api('GET', `/v1/mcp-servers/${servers['fs']}`);
    expect(mine.body.tools).toContain('mcp.fs.read_text_file');
  });
});

describe('MCP servers: tools called by a run', () => {
  it('presents the answer with an MCP output tool, offered only when the work is done', async () => {
    const agent = await stack.api('POST', '/v1/agents', {
      name: 'reporter',
      output_tools: ['output', 'mcp.fs.write_file'],
    });
    expect(agent.status).toBe(201);
    const report = join(dir, 'report.md');
    const res = await stack.api('POST', '/v1/runs', {
      agent_id: agent.body.id,
      input: { prompt: `[mcp-present] write the report to path=${report}` },
    });
    expect(res.status).toBe(202);
    await fetch(`${stack.llmUrl}/_requests`, { method: 'DELETE' });
    const ended = await stack.ended(res.body.run_id as string);
    expect(ended.status).toBe('succeeded');
    expect(ended.output.answer).toBe('Done.');
    // The tool ran with the arguments the model gave it: the file is there.
    expect(readFileSync(report, 'utf8')).toBe('# Report\nPresented by the output tool.');
    const actions = (await stack.api('GET', `/v1/runs/${res.body.run_id}/actions`)).body.actions as Action[];
    expect(actions.map((a) => a.node)).toEqual([
      'start',
      'intake',
      'memory',
      'planner',
      'mcp.fs.write_file',
      'reflection',
      'planner',
      'output',
    ]);
    const [presenting, closing] = actions.filter((a) => a.node === 'planner');
    expect(presenting.next).toEqual(['mcp.fs.write_file']);
    expect(presenting.result).toMatchObject({ output_tools: ['mcp.fs.write_file'] });
    expect(closing.summary).toBe('Presented with mcp.fs.write_file: writing the closing answer with output.');
    expect(closing.result).toMatchObject({ output_tools: ['output'] });
    // While the work went on, the output tool was not offered as a call tool.
    const rules = ((await (await fetch(`${stack.llmUrl}/_requests`)).json()) as { rule: string }[]).map(
      (r) => r.rule,
    );
    expect(rules).toContain('final-present-report');
    expect(rules).not.toContain('planner-offered-output-only-tool');
    const todos = (await stack.api('GET', `/v1/threads/${res.body.thread_id}/state`)).body.todos[0] as {
      id: string;
      status: string;
    }[];
    expect(todos).toContainEqual(expect.objectContaining({ id: 'present', status: 'completed' }));
  }, 30_000);

  it('reads a file through the filesystem server: the output is marked untrusted', async () => {
    const { status, actions } = await run(`[mcp-read] path=${join(dir, 'hello.txt')}`);
    expect(status).toBe('succeeded');
    const call = actions.find((a) => a.node === 'mcp.fs.read_text_file');
    expect(call?.error).toBeUndefined();
    expect(call?.result).toEqual({
      untrusted: true,
      server: 'fs',
      tool: 'read_text_file',
      content: [{ type: 'text', text: 'hello from the e2e test' }],
      structured_content: { content: 'hello from the e2e test' },
      truncated: false,
      bytes: expect.any(Number),
    });
    expect(call?.context).toEqual([
      {
        type: 'data',
        content: { untrusted: true, source: 'mcp.fs.read_text_file', text: 'hello from the e2e test' },
        important: false,
        usage_type: 'reference',
      },
    ]);
    expect(call?.next).toEqual(['reflection']);
  }, 60_000);

  it('caps an oversized output at the server max_output_bytes', async () => {
    const { actions } = await run(`[mcp-read] path=${join(dir, 'big.txt')}`);
    const call = actions.find((a) => a.node === 'mcp.fs.read_text_file');
    const result = call?.result as { truncated: boolean; content: { text: string }[]; bytes: number };
    expect(result.truncated).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'x'.repeat(1000) }]);
    expect(result.bytes).toBeGreaterThanOrEqual(5000);
    expect(call?.summary).toContain('capped at 1000');
  }, 60_000);

  it('times a hanging tool out with mcp_timeout; the restarted server answers the next call', async () => {
    const hang = await run('[mcp-hang] take your time');
    const call = hang.actions.find((a) => a.node === 'mcp.everything.trigger-long-running-operation');
    expect(call?.error?.code).toBe('mcp_timeout');
    expect(call?.error?.message).toContain('did not answer within 2000 ms');
    expect(call?.next).toEqual(['reflection']);

    const echo = await run('[mcp-echo] say something');
    const answer = echo.actions.find((a) => a.node === 'mcp.everything.echo');
    expect(answer?.error).toBeUndefined();
    expect((answer?.result as { content: unknown }).content).toEqual([
      { type: 'text', text: 'Echo: ping from the planner' },
    ]);
  }, 90_000);

  it('reconnects a server whose configuration changed; its tools keep working', async () => {
    await stack.sql(`UPDATE mcp_servers SET max_output_bytes = 2000, updated_at = now() WHERE name = 'fs'`);
    await waitFor('the reconnect', async () => stack.log('tool-executor').includes('MCP server changed'));
    const { actions } = await run(`[mcp-read] path=${join(dir, 'big.txt')}`);
    const call = actions.find((a) => a.node === 'mcp.fs.read_text_file');
    expect((call?.result as { content: { text: string }[] }).content[0].text).toHaveLength(2000);
  }, 60_000);

  it('deregisters the tools of a deleted server, and stale mcp.* registrations', async () => {
    const nc = await connect({ servers: stack.natsUrl });
    try {
      const kv = await (await nc.jetstream()).views.kv(NODE_REGISTRY_BUCKET);
      const ghost = { name: 'mcp.ghost.tool', service: 'tool-executor', kind: 'service', tool: true };
      await kv.put(
        'mcp.ghost.tool',
        JSON.stringify({ ...ghost, description: 'left behind', input_schema: {} }),
      );
      const del = await stack.api('DELETE', `/v1/mcp-servers/${servers['everything']}`);
      expect(del.status).toBe(200);
      expect(del.body).toMatchObject({ deleted: true, name: 'everything' });
      await waitFor('the everything tools to go', async () =>
        (await toolNames()).every((n) => !n.startsWith('mcp.everything.')),
      );
      await waitFor(
        'the stale registration to go',
        async () => (await kv.get('mcp.ghost.tool'))?.operation !== 'PUT',
      );
    } finally {
      await nc.close();
    }
    expect(await toolNames()).toContain('mcp.fs.read_text_file');
    expect((await stack.api('GET', `/v1/mcp-servers/${servers['everything']}`)).status).toBe(404);
  }, 30_000);
});
