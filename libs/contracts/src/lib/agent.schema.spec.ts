import { AgentConfigSchema } from './agent.schema';
import { NodeRegistrationSchema } from './node-registry.schema';

describe('node_timeouts_ms', () => {
  const parse = (node_timeouts_ms: unknown) => AgentConfigSchema.safeParse({ name: 'a', node_timeouts_ms });

  it('takes node names with a deadline of 1 s to 24 h', () => {
    const ok = parse({ calculator: 1_000, 'graph.begin': 86_400_000, 'mcp.files.read': 30_000 });
    expect(ok.success && ok.data.node_timeouts_ms).toEqual({
      calculator: 1_000,
      'graph.begin': 86_400_000,
      'mcp.files.read': 30_000,
    });
  });

  it.each([
    ['under a second', { calculator: 999 }],
    ['over a day', { calculator: 86_400_001 }],
    ['not whole milliseconds', { calculator: 1500.5 }],
    ['not a number', { calculator: '5000' }],
    ['not a node name', { 'Not A Node!': 5_000 }],
    ['more than 100 nodes', Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`n${i}`, 5_000]))],
  ])('refuses %s', (_, value) => {
    expect(parse(value).success).toBe(false);
  });
});

describe('a registration’s timeout_ms', () => {
  const base = {
    name: 'code_exec',
    service: 'planner',
    kind: 'service',
    tool: false,
    description: 'x',
    input_schema: {},
    idempotent: true,
    registered_at: new Date().toISOString(),
  };

  it('is optional and bounded like an agent’s', () => {
    expect(NodeRegistrationSchema.safeParse(base).success).toBe(true);
    expect(NodeRegistrationSchema.safeParse({ ...base, timeout_ms: 600_000 }).success).toBe(true);
    expect(NodeRegistrationSchema.safeParse({ ...base, timeout_ms: 10 }).success).toBe(false);
  });
});
