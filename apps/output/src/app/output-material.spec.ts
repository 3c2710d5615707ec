import { type Action, type Todo, TodoSchema, ZERO_USAGE } from '@switchyard/contracts';
import { emptyState } from '@switchyard/state';
import { gatherMaterial, materialSections } from './output-material';

const THREAD = '00000000-0000-4000-8000-000000000001';
const RUN = '00000000-0000-4000-8000-000000000002';
const AT = new Date(0).toISOString();

function action(id: number, node: string, extra: Partial<Action> = {}): Action {
  return {
    id,
    node,
    preparation: '',
    summary: '',
    result: null,
    usage: { ...ZERO_USAGE },
    next: [],
    started_at: AT,
    finished_at: AT,
    attempt: 1,
    ...extra,
  };
}
const todo = (t: Partial<Todo> & { id: string; task: string; status: Todo['status'] }): Todo =>
  TodoSchema.parse(t);

function turnOneState() {
  const state = emptyState(THREAD, RUN);
  state.turn = 1;
  state.prompts = ['first question', 'second question'];
  state.task_goals = ['goal one', 'goal two'];
  state.user_context = { user_id: 'ada', name: 'Ada', interests: ['engines', 'poetry'] };
  state.chat_history = [
    { role: 'user', content: 'first question' },
    { role: 'assistant', content: 'first answer' },
    { role: 'user', content: 'second question' },
  ];
  state.todos = [
    [],
    [
      todo({
        id: 'a',
        task: 'add',
        status: 'completed',
        completion_details: {
          completed_at: AT,
          tool_used: 'calculator',
          execution_time: 0.1,
          output: { value: 3 },
        },
      }),
      todo({
        id: 'b',
        task: 'divide',
        status: 'failed',
        error_history: [
          {
            timestamp: AT,
            attempt: 2,
            tool_used: 'calculator',
            error: 'div_zero: division by zero',
            retry_count: 1,
            execution_time: 0,
          },
        ],
      }),
      todo({ id: 'c', task: 'later', status: 'pending' }),
    ],
  ];
  state.action_history = [
    [],
    [
      action(5, 'planner'),
      action(6, 'calculator', { result: { value: 3 } }),
      action(7, 'reflection', {
        context: [
          { type: 'text', content: 'analysis note', important: false, usage_type: 'analysis' },
          { type: 'data', content: { results: [3] }, important: true, usage_type: 'output' },
          { type: 'text', content: 'key fact', important: true, usage_type: 'reference' },
        ],
      }),
      action(8, 'http_get', { error: { code: 'http_error', message: 'timeout' } }),
    ],
  ];
  return state;
}

describe('gatherMaterial', () => {
  it("takes this turn's output and important context entries, todos and results; earlier turns as history", () => {
    const m = gatherMaterial(turnOneState());
    expect(m.prompt).toBe('second question');
    expect(m.goal).toBe('goal two');
    expect(m.history).toEqual([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
    ]);
    expect(m.context).toEqual(['- [reflection, data] {"results":[3]}', '- [reflection, text] key fact']);
    expect(m.completed).toEqual(['- add: {"value":3}']);
    expect(m.failed).toEqual(['- divide: div_zero: division by zero (tool calculator, attempt 2)']);
    expect(m.unfinished).toEqual(['- later']);
    expect(m.results).toEqual(['- calculator: {"value":3}', '- http_get: error: timeout']);
    expect(m.about).toBe('About the user (from their profile):\n- Name: Ada\n- Interests: engines, poetry');
  });

  it('leaves empty sections out of the prompt', () => {
    const state = emptyState(THREAD, RUN);
    state.prompts = ['hi'];
    const text = materialSections(gatherMaterial(state));
    expect(text).toBe('No tool was used.');
  });
});
