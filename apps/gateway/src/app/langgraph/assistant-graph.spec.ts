import { agentGraph, defaultAgentGraph } from './assistant-graph';

describe(agentGraph.name, () => {
  it("draws a PuppyEngine workflow's edges as its nodes, linked through the blocks they share", () => {
    const graph = agentGraph({
      name: 'chain',
      max_steps: 50,
      kind: 'graph',
      dsl: {
        blocks: {
          '1': { label: 'a', type: 'text', data: { content: 'Mei' } },
          '2': { label: 'b', type: 'text', data: { content: '' } },
          '3': { label: 'c', type: 'text', data: { content: '' } },
        },
        edges: {
          'llm-1': {
            type: 'llm',
            data: {
              messages: [{ role: 'user', content: 'hi {{a}}' }],
              inputs: { '1': 'a' },
              outputs: { '2': 'b' },
            },
          },
          'llm-2': {
            type: 'llm',
            data: {
              messages: [{ role: 'user', content: 'again {{b}}' }],
              inputs: { '2': 'b' },
              outputs: { '3': 'c' },
            },
          },
        },
        version: '0.2',
      },
    });
    expect(graph.nodes.map((n) => [n.id, n.type])).toEqual([
      ['__start__', 'schema'],
      ['llm-1', 'runnable'],
      ['llm-2', 'runnable'],
      ['__end__', 'schema'],
    ]);
    expect(graph.edges).toEqual([
      { source: '__start__', target: 'llm-1' },
      { source: 'llm-1', target: 'llm-2' },
      { source: 'llm-2', target: '__end__' },
    ]);
  });

  it('draws the default agent for an agent that is not a graph', () => {
    expect(agentGraph({ name: 'plain', max_steps: 50, system_prompt: 'Be brief.' })).toEqual(
      defaultAgentGraph(),
    );
    expect(agentGraph(null)).toEqual(defaultAgentGraph());
  });

  it('every edge of the default agent joins two of its nodes', () => {
    const g = defaultAgentGraph();
    const ids = new Set(g.nodes.map((n) => n.id));
    expect(g.edges.filter((e) => !ids.has(e.source) || !ids.has(e.target))).toEqual([]);
  });
});
