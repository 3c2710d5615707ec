import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentConfig, graphNodeName } from '@switchyard/contracts';
import { agentGraph, asNodeSuccessors, defaultAgentGraph } from './assistant-graph';

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

describe(asNodeSuccessors.name, () => {
  const plain: AgentConfig = { name: 'plain', max_steps: 50, tools: ['calculator'] };
  const canvas: AgentConfig = {
    name: 'all',
    max_steps: 50,
    kind: 'graph',
    dsl: JSON.parse(
      readFileSync(join(__dirname, '../../../../../libs/graph/fixtures/ragflow/all.json'), 'utf8'),
    ) as Record<string, unknown>,
  };

  it.each([
    ['__start__', ['intake']],
    ['start', ['intake']],
    ['intake', ['preprocess', 'memory']],
    ['ask_user', ['planner']],
    ['reflection', ['planner']],
    ['tools', ['reflection']],
    ['calculator', ['reflection']],
    ['archive', []],
  ])("the default agent's %s → %j", (node, next) => {
    expect(asNodeSuccessors(plain, node)).toEqual(next);
  });

  it.each([
    ['planner', 'chooses its successors at run time (tools, ask_user, output)'],
    ['output', 'chooses its successors at run time'],
    ['planer', '"planer" is not a node of the agent (__start__, start, intake'],
    ['__end__', 'is not a node of the agent'],
  ])("refuses the default agent's %s", (node, message) => {
    expect(() => asNodeSuccessors(plain, node)).toThrow(message);
  });

  it.each([
    ['__start__', ['begin']],
    ['begin', ['UserFillUp:Menu']],
    ['Iteration:IterateList', ['IterationItem:IterStart']],
    ['Message:Only', []],
  ])("a canvas's %s → the nodes of %j", (node, next) => {
    expect(asNodeSuccessors(canvas, node)).toEqual(next.map(graphNodeName));
  });

  it.each([
    ['Switch:Route', '(Switch) chooses its successors by what it computes'],
    ['IterationItem:IterStart', '(IterationItem) chooses'],
    ['No:Such', '"No:Such" is not a component of the canvas (Categorize:Demo, CodeExec:Double, '],
  ])("refuses a canvas's %s", (node, message) => {
    expect(() => asNodeSuccessors(canvas, node)).toThrow(message);
  });

  it('refuses any node of a PuppyEngine workflow', () => {
    const wf: AgentConfig = {
      name: 'wf',
      max_steps: 50,
      kind: 'graph',
      dsl: { blocks: {}, edges: {}, version: '0.2' },
    };
    expect(() => asNodeSuccessors(wf, 'llm-1')).toThrow('PuppyEngine workflow');
  });
});
