import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentConfig, graphNodeName } from '@switchyard/contracts';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { assertAgentConfig, assertNodeTimeouts, shownConfig, storedConfig } from './agent-config.validator';

const FIXTURES = join(__dirname, '../../../../../libs/graph/fixtures/ragflow');
const fixture = (name: string) =>
  JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>;

function refusal(config: AgentConfig): ApiException {
  try {
    assertAgentConfig(config);
  } catch (err) {
    if (err instanceof ApiException) {
      return err;
    }
    throw err;
  }
  throw new Error('accepted');
}

const graph = (dsl: unknown): AgentConfig => ({
  name: 'g',
  max_steps: 50,
  kind: 'graph',
  dsl: dsl as Record<string, unknown>,
});
const begin = { obj: { component_name: 'Begin', params: {} }, downstream: ['Message:M'], upstream: [] };
const message = (content: unknown) => ({
  obj: { component_name: 'Message', params: { content } },
  downstream: [],
  upstream: ['begin'],
});

describe(assertAgentConfig.name, () => {
  it.each([
    ['switch.json (graph-only)', fixture('switch.json')],
    ['customer_feedback_dispatcher.json (template wrapper)', fixture('customer_feedback_dispatcher.json')],
    ['agent_msg.json (components form)', fixture('agent_msg.json')],
  ])('accepts %s', (_name, dsl) => {
    expect(() => assertAgentConfig(graph(dsl))).not.toThrow();
  });

  it('accepts a default agent without a dsl', () => {
    expect(() => assertAgentConfig({ name: 'd', max_steps: 5 })).not.toThrow();
  });

  it.each<[string, AgentConfig, string, string | undefined]>([
    ['a graph agent without dsl', { name: 'g', max_steps: 5, kind: 'graph' }, 'dsl', undefined],
    ['a dsl on a default agent', { name: 'd', max_steps: 5, dsl: {} }, 'dsl', undefined],
    ['neither components nor graph', graph({ title: 'x' }), 'dsl.components', undefined],
    [
      'an unknown component',
      graph({
        components: {
          begin,
          'Message:M': { ...message(['x']), obj: { component_name: 'Nope', params: {} } },
        },
      }),
      'dsl.components.Message:M.component_name',
      'Message:M',
    ],
    [
      'a dangling downstream',
      graph({ components: { begin: { ...begin, downstream: ['Ghost'] }, 'Message:M': message(['x']) } }),
      'dsl.components.begin.downstream',
      'begin',
    ],
    [
      'a cycle',
      graph({ components: { begin, 'Message:M': { ...message(['x']), downstream: ['begin'] } } }),
      'dsl.components.Message:M.downstream',
      'Message:M',
    ],
    [
      'a Message without content',
      graph({ components: { begin, 'Message:M': message([]) } }),
      'dsl.components.Message:M.content',
      'Message:M',
    ],
    [
      'all.json as shipped (dangling CodeExec:FunnyBroomsShare)',
      graph(fixture('all.json')),
      'dsl.components.Switch:Route.conditions.4.to',
      'Switch:Route',
    ],
  ])('refuses %s with a 400 naming the field', (_case, config, field, component) => {
    const e = refusal(config);
    expect(e.code).toBe(ApiErrorCode.InvalidRequest);
    expect(e.details).toContainEqual(expect.objectContaining({ field, ...(component ? { component } : {}) }));
  });
});

describe(`${assertAgentConfig.name} (PuppyEngine workflows)`, () => {
  const llm = (inputs: Record<string, string>, content = 'hi {{a}}') => ({
    type: 'llm',
    data: { messages: [{ role: 'user', content }], inputs, outputs: { b: 'b' } },
  });
  const workflow = (edge: unknown) => ({
    blocks: { a: { label: 'a', type: 'text', data: { content: 'x' } }, b: { label: 'b', data: {} } },
    edges: { 'llm-1': edge },
  });

  it('accepts engine JSON and editor JSON', () => {
    expect(() => assertAgentConfig(graph(workflow(llm({ a: 'a' }))))).not.toThrow();
    const editor = {
      blocks: [
        { id: 'a', type: 'text', data: { label: 'a', content: 'x' } },
        { id: 'n', type: 'llmnew', data: { content: [{ role: 'user', content: '{{a}}' }] } },
        { id: 'b', type: 'text', data: { label: 'b', content: '' } },
      ],
      edges: [
        { id: 'c1', source: 'a', target: 'n', data: { connectionType: 'STC' } },
        { id: 'c2', source: 'n', target: 'b', data: { connectionType: 'CTT' } },
      ],
    };
    expect(() => assertAgentConfig(graph(editor))).not.toThrow();
  });

  it.each([
    ['an input naming a missing block', llm({ z: 'a' }), 'dsl.edges.llm-1.data.inputs.z'],
    ['a placeholder naming no input', llm({ a: 'a' }, '{{q}}'), 'dsl.edges.llm-1.data.messages.0.content'],
    ['an unknown edge type', { ...llm({ a: 'a' }), type: 'nope' }, 'dsl.edges.llm-1.type'],
  ])('refuses %s, naming the edge and field', (_name, edge, field) => {
    expect(refusal(graph(workflow(edge))).details).toContainEqual(
      expect.objectContaining({ edge: 'llm-1', field }),
    );
  });
});

describe(storedConfig.name, () => {
  const cats = { 'Negative review ': { to: ['x'] }, 'Positive review': { to: ['y'] } };
  const config = graph({ components: { c: { obj: { params: { category_description: cats } } } } });

  it('keeps the DSL as JSON text, so jsonb cannot reorder its keys', () => {
    expect(typeof storedConfig(config).dsl).toBe('string');
  });

  it.each([
    ['a stored configuration', storedConfig(config)],
    ['an unstored one', config],
    ['a default agent', { name: 'd', max_steps: 5 } as AgentConfig],
  ])('shows %s with the DSL as an object in its original key order', (_case, stored) => {
    const shown = shownConfig(stored);
    expect(JSON.stringify(shown)).toBe(JSON.stringify(stored.dsl === undefined ? stored : config));
  });

  it('validates a stored (text) DSL, and refuses text that is not JSON', () => {
    expect(() => assertAgentConfig(storedConfig(graph(fixture('switch.json'))))).not.toThrow();
    expect(refusal(graph('{nope' as never)).details).toContainEqual(
      expect.objectContaining({ field: 'dsl' }),
    );
  });
});

describe(assertNodeTimeouts.name, () => {
  const canvas = graph({ components: { begin, 'Message:M': message(['hi']) } });
  const refused = async (config: AgentConfig, registered: string[] = []) => {
    try {
      await assertNodeTimeouts(config, (n) => Promise.resolve(registered.includes(n)));
    } catch (err) {
      if (err instanceof ApiException) {
        return err.details;
      }
      throw err;
    }
    return undefined;
  };

  it("takes a graph agent's own component nodes, and no other node", async () => {
    const ok = { ...canvas, node_timeouts_ms: { [graphNodeName('Message:M')]: 5_000, 'graph.begin': 2_000 } };
    expect(await refused(ok, ['calculator'])).toBeUndefined();
    const bad = { ...canvas, node_timeouts_ms: { calculator: 5_000, [graphNodeName('Message:X')]: 5_000 } };
    expect(await refused(bad, ['calculator'])).toEqual([
      {
        field: 'node_timeouts_ms.calculator',
        message: expect.stringContaining('not a node of this graph agent'),
      },
      {
        field: `node_timeouts_ms.${graphNodeName('Message:X')}`,
        message: expect.stringContaining('not a node of this graph agent'),
      },
    ]);
  });

  it("takes a default agent's registered nodes only", async () => {
    const config: AgentConfig = {
      name: 'd',
      max_steps: 50,
      node_timeouts_ms: { calculator: 5_000, nope: 5_000 },
    };
    expect(await refused(config, ['calculator'])).toEqual([
      { field: 'node_timeouts_ms.nope', message: '"nope" is not a node any service registered' },
    ]);
    expect(
      await refused({ ...config, node_timeouts_ms: { calculator: 5_000 } }, ['calculator']),
    ).toBeUndefined();
  });
});
