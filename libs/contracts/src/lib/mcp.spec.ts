import { NodeRegistrationSchema } from './node-registry.schema';
import { McpServerNameSchema, isStdioCommandAllowed, parseHostAllowList, parseStdioAllowList } from './mcp';

describe('MCP server rules', () => {
  it('accepts names that make node-name segments without "__"', () => {
    for (const ok of ['fs', 'my-server', 'my_server2', 'a1']) {
      expect(McpServerNameSchema.safeParse(ok).success).toBe(true);
    }
    for (const bad of ['', 'Fs', '1fs', 'a__b', 'a.b', 'a_', 'a-', 'x'.repeat(33)]) {
      expect(McpServerNameSchema.safeParse(bad).success).toBe(false);
    }
  });

  it('allows a stdio command only as an allowed argv prefix', () => {
    const allow = parseStdioAllowList(' /usr/bin/node /opt/fs/index.js , uvx  mcp-server-time,npx-free ');
    expect(allow).toEqual([['/usr/bin/node', '/opt/fs/index.js'], ['uvx', 'mcp-server-time'], ['npx-free']]);
    expect(isStdioCommandAllowed(allow, '/usr/bin/node', ['/opt/fs/index.js', '/data'])).toBe(true);
    expect(isStdioCommandAllowed(allow, '/usr/bin/node', ['-e', 'process.exit()'])).toBe(false);
    expect(isStdioCommandAllowed(allow, '/usr/bin/node', [])).toBe(false);
    expect(isStdioCommandAllowed(allow, 'uvx', ['mcp-server-time'])).toBe(true);
    expect(isStdioCommandAllowed(allow, 'npx-free', ['anything'])).toBe(true);
    expect(isStdioCommandAllowed(allow, 'node', ['/opt/fs/index.js'])).toBe(false);
    expect(isStdioCommandAllowed(parseStdioAllowList(''), 'node', [])).toBe(false);
    expect(parseHostAllowList(' 127.0.0.1 ,MCP.internal,')).toEqual(['127.0.0.1', 'mcp.internal']);
  });

  it('keeps node registrations without a tenant valid and checks the tenant id', () => {
    const reg = {
      name: 'mcp.fs.read_file',
      service: 'tool-executor',
      kind: 'service',
      tool: true,
      description: 'x',
      input_schema: {},
      idempotent: true,
      registered_at: new Date().toISOString(),
    };
    expect(NodeRegistrationSchema.safeParse(reg).success).toBe(true);
    expect(
      NodeRegistrationSchema.parse({ ...reg, tenant_id: '9b2f7c1e-8d3a-4c5b-9e6f-1a2b3c4d5e6f' }).tenant_id,
    ).toBe('9b2f7c1e-8d3a-4c5b-9e6f-1a2b3c4d5e6f');
    expect(NodeRegistrationSchema.safeParse({ ...reg, tenant_id: 'nope' }).success).toBe(false);
  });
});
