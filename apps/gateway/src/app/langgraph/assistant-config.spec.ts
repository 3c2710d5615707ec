import type { AgentConfig } from '@switchyard/contracts';
import { type ApiException } from '../http/api.exception';
import { assistantAgentConfig } from './assistant-config';

const base: AgentConfig = { name: 'agent', max_steps: 50, system_prompt: 'Be brief.', tools: ['calculator'] };

function field(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return ((err as ApiException).details as { field: string }[])[0].field;
  }
  throw new Error('accepted');
}

describe(assistantAgentConfig.name, () => {
  it("lays config.configurable, recursion_limit and context over the graph's configuration", () => {
    expect(
      assistantAgentConfig(
        base,
        'terse',
        { configurable: { system_prompt: 'One word.', tools: [] }, recursion_limit: 12 },
        { models: { planner: 'gpt-x' } },
      ),
    ).toEqual({
      name: 'terse',
      max_steps: 12,
      system_prompt: 'One word.',
      tools: [],
      models: { planner: 'gpt-x' },
    });
    // context comes last.
    expect(
      assistantAgentConfig(base, 'a', { configurable: { max_steps: 5 } }, { max_steps: 7 }).max_steps,
    ).toBe(7);
    // A graph agent keeps its kind and canvas.
    const graph: AgentConfig = { name: 'g', max_steps: 50, kind: 'graph', dsl: '{}' };
    expect(assistantAgentConfig(graph, 'b', {}, {})).toEqual({ ...graph, name: 'b' });
  });

  it.each([
    [{ configurable: { temperature: 1 } }, {}, 'config.configurable.temperature'],
    [{ configurable: { dsl: '{}' } }, {}, 'config.configurable.dsl'],
    [{ configurable: { max_steps: 0 } }, {}, 'config.configurable.max_steps'],
    [{ configurable: 'x' }, {}, 'config.configurable'],
    [{ recursion_limit: -1 }, {}, 'config.recursion_limit'],
    [{ tags: ['x'] }, {}, 'config.tags'],
    [{}, { kind: 'graph' }, 'context.kind'],
    [{}, { tools: ['Bad Name'] }, 'context.tools'],
  ])('refuses %j / %j naming %s', (config, context, name) => {
    expect(field(() => assistantAgentConfig(base, 'x', config, context))).toBe(name);
  });
});
