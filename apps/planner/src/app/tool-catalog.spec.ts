import type { ClientTool, NodeRegistration } from '@switchyard/contracts';
import { CLIENT_TOOL, toolFunctionName } from '@switchyard/contracts';
import { ToolCatalog } from './tool-catalog';

const node = (
  name: string,
  extra: Partial<NodeRegistration> & { tenant_id?: string } = {},
): NodeRegistration =>
  ({
    name,
    service: 'tool-executor',
    kind: 'service',
    tool: true,
    description: `${name} tool`,
    input_schema: { type: 'object' },
    idempotent: true,
    registered_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  }) as NodeRegistration;

describe('toolFunctionName', () => {
  it('turns dots into __ so MCP node names are valid OpenAI function names', () => {
    expect(toolFunctionName('mcp.files.read_file')).toBe('mcp__files__read_file');
    expect(toolFunctionName('calculator')).toBe('calculator');
  });

  it('keeps long names within 64 characters and apart from each other', () => {
    const a = toolFunctionName(`mcp.server.${'x'.repeat(80)}a`);
    const b = toolFunctionName(`mcp.server.${'x'.repeat(80)}b`);
    expect(a.length).toBeLessThanOrEqual(64);
    expect(a).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(a).not.toBe(b);
  });
});

describe('ToolCatalog', () => {
  const nodes = [
    node('calculator'),
    node('mcp.fs.read'),
    node('reflection', { tool: false }),
    node('acme_only', { tenant_id: 'tenant-a' }),
  ];

  it('offers tool nodes as functions and maps the calls back to node names', () => {
    const c = ToolCatalog.build(nodes, { tenantId: 'tenant-a' });
    expect(c.names).toEqual(['calculator', 'mcp.fs.read', 'acme_only']);
    expect(c.functions().map((f) => f.function.name)).toEqual(['calculator', 'mcp__fs__read', 'acme_only']);
    expect(c.nodeOf('mcp__fs__read')).toBe('mcp.fs.read');
    // A name that was not offered stays as it is, so the orchestrator can name it in its error.
    expect(c.nodeOf('teleport')).toBe('teleport');
  });

  it("offers a tenant's own tool to that tenant only", () => {
    expect(ToolCatalog.build(nodes, { tenantId: 'tenant-b' }).names).toEqual(['calculator', 'mcp.fs.read']);
    expect(ToolCatalog.build(nodes, { tenantId: null }).names).not.toContain('acme_only');
  });

  it("offers only the agent's allowed tools", () => {
    expect(ToolCatalog.build(nodes, { tenantId: 'tenant-a', allowed: ['mcp.fs.read'] }).names).toEqual([
      'mcp.fs.read',
    ]);
  });

  it('leaves out a node whose function name clashes with an earlier one, and says so', () => {
    const c = ToolCatalog.build([node('a.b'), node('a__b')], { tenantId: null });
    expect(c.names).toEqual(['a.b']);
    expect(c.skipped).toEqual(['a__b']);
  });

  it("offers the client's functions after the tools and turns their calls into client_tool calls", () => {
    const weather: ClientTool = {
      type: 'function',
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    };
    const bare: ClientTool = { type: 'function', function: { name: 'ping' } };
    const c = ToolCatalog.build(nodes, { tenantId: null, clientTools: [weather, bare] });
    expect(c.functions().map((f) => f.function.name)).toEqual([
      'calculator',
      'mcp__fs__read',
      'get_weather',
      'ping',
    ]);
    expect(c.functions()[3].function.parameters).toEqual({ type: 'object', properties: {} });
    expect(c.toolCall('get_weather', 'call_1', { city: 'Oslo' })).toEqual({
      id: 'call_1',
      name: CLIENT_TOOL.name,
      args: { name: 'get_weather', arguments: { city: 'Oslo' } },
    });
    expect(c.toolCall('mcp__fs__read', 'call_2', { path: 'a' })).toEqual({
      id: 'call_2',
      name: 'mcp.fs.read',
      args: { path: 'a' },
    });
  });

  it('lets a client function win a name clash with a tool node, and says so', () => {
    const calculator: ClientTool = { type: 'function', function: { name: 'calculator' } };
    const c = ToolCatalog.build(nodes, { tenantId: null, clientTools: [calculator] });
    expect(c.skipped).toEqual(['calculator']);
    expect(c.functions().map((f) => f.function.name)).toEqual(['mcp__fs__read', 'calculator']);
    expect(c.toolCall('calculator', 'x', {}).name).toBe(CLIENT_TOOL.name);
  });
  describe('tool types', () => {
    const typed = [
      node('calculator'),
      node('mcp.fs.write', { types: ['output'] }),
      node('mcp.fs.both', { types: ['call', 'output'] }),
      node('mcp.acme.post', { types: ['output'], tenant_id: 'tenant-a' }),
    ];

    it('offers call tools during the work and output tools for the answer', () => {
      const c = ToolCatalog.build(typed, { tenantId: 'tenant-a' });
      expect(c.names).toEqual(['calculator', 'mcp.fs.both']);
      expect(c.outputs.map((t) => t.name)).toEqual(['mcp.fs.write', 'mcp.fs.both', 'mcp.acme.post']);
      expect(c.outputFunction('mcp.fs.write')?.function.name).toBe('mcp__fs__write');
      expect(c.outputFunction('calculator')).toBeUndefined();
      // An output tool's call maps back to its node like any other.
      expect(c.toolCall('mcp__fs__write', 'c1', {}).name).toBe('mcp.fs.write');
    });

    it("keeps to the agent's output tools, and a tenant's own to that tenant", () => {
      const c = ToolCatalog.build(typed, {
        tenantId: 'tenant-b',
        allowed: ['calculator'],
        outputAllowed: ['mcp.fs.write', 'mcp.acme.post'],
      });
      expect(c.names).toEqual(['calculator']);
      expect(c.outputs.map((t) => t.name)).toEqual(['mcp.fs.write']);
      // Without output_tools the agent's tools decide.
      expect(
        ToolCatalog.build(typed, { tenantId: null, allowed: ['mcp.fs.both'] }).outputs.map((t) => t.name),
      ).toEqual(['mcp.fs.both']);
    });
  });
});
