// The turn's conversation as the planner's unplanned calls send it.
import { type AIMessage, ToolMessage } from '@langchain/core/messages';
import type { Action, PlannerResult } from '@switchyard/contracts';
import { conversation } from './planner.prompts';

const at = '2026-11-29T00:00:00.000Z';
const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

function action(id: number, node: string, result: unknown, extra: Partial<Action> = {}): Action {
  return {
    id,
    node,
    preparation: '',
    summary: `${node} ${id}`,
    result,
    usage,
    next: [],
    started_at: at,
    finished_at: at,
    attempt: 1,
    ...extra,
  };
}

const planned = (id: number, calls: PlannerResult['tool_calls']): Action =>
  action(id, 'planner', {
    content: `step ${id}`,
    tool_calls: calls,
    output_tools: [],
    mode: 'adhoc',
  } satisfies PlannerResult);

const background = { sections: [], history: [], omitted: 0 };

describe('conversation', () => {
  const turn: Action[] = [
    action(1, 'intake', { goal: 'add' }),
    planned(2, [{ id: 'c1', name: 'calculator', args: { expression: '1+1' } }]),
    action(3, 'calculator', { value: 2 }),
    action(4, 'reflection', { verdict: 'ok' }),
    planned(5, [
      { id: 'c2', name: 'calculator', args: { expression: '2+2' } },
      { id: 'c3', name: 'calculator', args: { expression: '3+3' } },
    ]),
    action(6, 'calculator', null, { error: { code: 'tool_failed', message: 'no' } }),
  ];

  it('puts each planner call before the results of its tools, in order', () => {
    const messages = conversation('add', 'the sum', turn, background);
    expect(messages.map((m) => m.getType())).toEqual(['system', 'human', 'ai', 'tool', 'ai', 'tool']);
    const [, , first, result, second, failed] = messages;
    expect((first as AIMessage).tool_calls).toEqual([
      { id: 'c1', name: 'calculator', args: { expression: '1+1' }, type: 'tool_call' },
    ]);
    expect(result).toMatchObject({ content: '{"value":2}', tool_call_id: 'c1' });
    expect((second as AIMessage).tool_calls?.map((c) => c.id)).toEqual(['c2', 'c3']);
    expect(failed).toMatchObject({ content: 'error tool_failed: no', tool_call_id: 'c2' });
    expect(messages[0].content).toContain('- reflection: reflection 4');
  });

  it("builds an action's messages once: a later call of the turn reuses them", () => {
    const before = conversation('add', 'the sum', turn, background);
    const later = conversation(
      'add',
      'the sum',
      [...turn, action(7, 'calculator', { value: 6 })],
      background,
    );
    expect(later.slice(2, 6)).toEqual(before.slice(2, 6));
    for (let i = 2; i < 6; i++) {
      expect(later[i]).toBe(before[i]);
    }
    expect(later[6]).toBeInstanceOf(ToolMessage);
    expect(later[6]).toMatchObject({ content: '{"value":6}', tool_call_id: 'c3' });
  });

  it('answers a different call with a message of its own', () => {
    const calc = action(3, 'calculator', { value: 2 });
    const one = conversation(
      'x',
      '',
      [planned(2, [{ id: 'a', name: 'calculator', args: {} }]), calc],
      background,
    );
    const two = conversation(
      'x',
      '',
      [planned(2, [{ id: 'b', name: 'calculator', args: {} }]), calc],
      background,
    );
    expect(one[3]).toMatchObject({ tool_call_id: 'a' });
    expect(two[3]).toMatchObject({ tool_call_id: 'b' });
  });
});
