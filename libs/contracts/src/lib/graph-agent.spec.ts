import { GRAPH_ENTRY_NODE, componentIdOfNode, graphNodeName } from './graph-agent';
import { NodeNameSchema } from './state.schema';

describe(graphNodeName.name, () => {
  it.each([
    ['begin', 'graph.begin'],
    ['Switch:EmptySquidsJudge', 'graph.-switch---empty-squids-judge'],
    ['retrieval:0', 'graph.retrieval--0'],
    ['Agent:Foo_bar2', 'graph.-agent---foo_bar2'],
    ['A:B', 'graph.-a---b'],
  ])('%s ↔ %s (a valid node name, reversible)', (id, node) => {
    expect(graphNodeName(id)).toBe(node);
    expect(NodeNameSchema.safeParse(node).success).toBe(true);
    expect(componentIdOfNode(node)).toBe(id);
  });

  it.each([['planner'], ['mcp.fs.read'], ['graphx.begin']])('%s is no graph node', (node) => {
    expect(componentIdOfNode(node)).toBeUndefined();
  });

  it('enters a canvas at its Begin', () => {
    expect(componentIdOfNode(GRAPH_ENTRY_NODE)).toBe('begin');
  });
});
