/**
 * A RAGFlow canvas whose work is pure components only (test and benchmark data): a Loop of
 * `turns` turns, each LoopItem → VariableAssigner (env.count += 1) → StringTransform (merges
 * "turn {env.count}") → Switch (never matched: "stop" is never in the text) → StringTransform (the
 * body's end: the next turn), then a Message with the count. 5 components a turn.
 */
export function pureLoopCanvas(turns: number): Record<string, unknown> {
  const c = (
    name: string,
    params: Record<string, unknown>,
    downstream: string[],
    parent?: string,
  ): Record<string, unknown> => ({
    obj: { component_name: name, params },
    downstream,
    upstream: [],
    ...(parent ? { parent_id: parent } : {}),
  });
  const loop = 'Loop:Count';
  const components: Record<string, Record<string, unknown>> = {
    begin: c('Begin', { mode: 'conversational' }, [loop]),
    [loop]: c(
      'Loop',
      {
        loop_variables: [],
        logical_operator: 'and',
        loop_termination_condition: [
          { variable: 'env.count', operator: '≥', input_mode: 'constant', value: turns },
        ],
        maximum_loop_count: turns + 1,
      },
      ['Message:Done'],
    ),
    'LoopItem:Start': c('LoopItem', {}, ['VariableAssigner:Inc'], loop),
    'VariableAssigner:Inc': c(
      'VariableAssigner',
      { variables: [{ operator: '+=', parameter: 1, variable: 'env.count' }] },
      ['StringTransform:Fmt'],
      loop,
    ),
    'StringTransform:Fmt': c(
      'StringTransform',
      { method: 'merge', script: 'turn {env.count}', delimiters: [','], split_ref: '' },
      ['Switch:Check'],
      loop,
    ),
    'Switch:Check': c(
      'Switch',
      {
        conditions: [
          {
            items: [{ cpn_id: 'StringTransform:Fmt@result', operator: 'contains', value: 'stop' }],
            logical_operator: 'and',
            to: ['ExitLoop:Out'],
          },
        ],
        end_cpn_ids: ['StringTransform:Tail'],
      },
      ['ExitLoop:Out', 'StringTransform:Tail'],
      loop,
    ),
    'StringTransform:Tail': c(
      'StringTransform',
      { method: 'merge', script: '{StringTransform:Fmt@result}.', delimiters: [','], split_ref: '' },
      [],
      loop,
    ),
    'ExitLoop:Out': c('ExitLoop', {}, [], loop),
    'Message:Done': c('Message', { content: ['count={env.count}; {StringTransform:Tail@result}'] }, []),
  };
  for (const [id, comp] of Object.entries(components)) {
    comp['upstream'] = Object.keys(components).filter((k) =>
      (components[k]['downstream'] as string[]).includes(id),
    );
  }
  return {
    components,
    globals: { 'env.count': 0 },
    variables: { count: { name: 'count', type: 'number', value: 0, description: 'turns so far' } },
  };
}
