import { type Action, ZERO_USAGE } from '@switchyard/contracts';
import { emptyState } from '@switchyard/state';
import { chooseOutputTools, plannerChoice } from './output-tools';

const THREAD = '00000000-0000-4000-8000-000000000001';
const RUN = '00000000-0000-4000-8000-000000000002';

function action(id: number, node: string, result: unknown): Action {
  const at = new Date(0).toISOString();
  return {
    id,
    node,
    preparation: '',
    summary: '',
    result,
    usage: { ...ZERO_USAGE },
    next: [],
    started_at: at,
    finished_at: at,
    attempt: 1,
  };
}

describe('chooseOutputTools', () => {
  it('defaults to output when the planner chose nothing', () => {
    expect(chooseOutputTools(undefined, undefined)).toEqual({ tools: ['output'], dropped: [] });
    expect(chooseOutputTools([], undefined)).toEqual({ tools: ['output'], dropped: [] });
  });

  it("keeps the planner's choice to the agent's allowed tools and known tools, without duplicates", () => {
    expect(chooseOutputTools(['output', 'output_structured', 'output'], undefined).tools).toEqual([
      'output',
      'output_structured',
    ]);
    expect(chooseOutputTools(['output', 'output_structured'], ['output'])).toEqual({
      tools: ['output'],
      dropped: ['output_structured'],
    });
    expect(chooseOutputTools(['teleport', 'output'], undefined)).toEqual({
      tools: ['output'],
      dropped: ['teleport'],
    });
  });

  it("falls back to the agent's first allowed output tool when nothing chosen is allowed", () => {
    expect(chooseOutputTools(['output'], ['output_structured']).tools).toEqual(['output_structured']);
    expect(chooseOutputTools(['output'], ['something_else']).tools).toEqual(['output']);
  });
});

describe('plannerChoice', () => {
  it("reads output_tools of the turn's last planner action", () => {
    const state = emptyState(THREAD, RUN);
    state.action_history = [
      [
        action(1, 'planner', { content: '', tool_calls: [], output_tools: ['output'] }),
        action(2, 'calculator', { value: 1 }),
        action(3, 'planner', { content: '', tool_calls: [], output_tools: ['output_structured'] }),
      ],
    ];
    expect(plannerChoice(state)).toEqual(['output_structured']);
  });

  it('is undefined without a planner action or without output_tools', () => {
    const state = emptyState(THREAD, RUN);
    state.action_history = [[action(1, 'start', {})]];
    expect(plannerChoice(state)).toBeUndefined();
    state.action_history = [[action(1, 'planner', { content: '', tool_calls: [] })]];
    expect(plannerChoice(state)).toBeUndefined();
  });
});
