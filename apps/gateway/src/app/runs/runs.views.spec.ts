import type { RunWaiting } from '@switchyard/persistence';
import { answerDelta, clientResultDelta } from './runs.stream';
import { createdRunView, meteredUsageOf } from './runs.views';

const RUN = '00000000-0000-4000-8000-000000000001';
const NOW = '2026-01-01T00:00:10.000Z';
const waiting: RunWaiting = {
  task_id: '00000000-0000-4000-8000-000000000002',
  node: 'ask_user',
  question: 'Which colour?',
  input_schema: {},
  since: '2026-01-01T00:00:00.000Z',
};

describe('createdRunView', () => {
  it('answers a created (or repeated) run as queued, with an ISO creation time', () => {
    expect(createdRunView({ id: RUN, thread_id: 't', created_at: new Date('2026-01-01T00:00:00Z') })).toEqual(
      { run_id: RUN, thread_id: 't', status: 'queued', created_at: '2026-01-01T00:00:00.000Z' },
    );
  });
});

describe('meteredUsageOf', () => {
  it('sums the usage of every model, zero before any call', () => {
    const m = { model_id: 'a', prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, cost: 1 };
    expect(meteredUsageOf([m, { ...m, model_id: null, prompt_tokens: 10, total_tokens: 14 }])).toEqual({
      prompt_tokens: 13,
      completion_tokens: 8,
      total_tokens: 21,
    });
    expect(meteredUsageOf([])).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });
});

describe('answerDelta', () => {
  it('is the human node’s action with the answer, going where the question said', () => {
    const d = answerDelta(RUN, waiting, 7, { answer: 'blue' }, NOW);
    expect(d).toMatchObject({ task_id: waiting.task_id, run_id: RUN, node: 'ask_user', base_version: 7 });
    expect(d.delta.action).toMatchObject({
      preparation: 'Asked the user: Which colour?',
      result: { answer: 'blue' },
      next: ['planner'],
      started_at: waiting.since,
      finished_at: NOW,
    });
    expect(answerDelta(RUN, { ...waiting, resume_at: 'graph.x' }, 7, {}, NOW).delta.action?.next).toEqual([
      'graph.x',
    ]);
  });
});

describe('clientResultDelta', () => {
  it('is the client_tool action with the client’s result, based on the task’s version', () => {
    const call = { task_id: 'task-1', id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } };
    const d = clientResultDelta(RUN, waiting, call, { version: 4, trace_parent: null }, 'sunny', NOW);
    expect(d).toMatchObject({ task_id: 'task-1', node: 'client_tool', base_version: 4 });
    expect(d.delta.action).toMatchObject({
      preparation: 'The client was asked to run get_weather({"city":"Oslo"}).',
      result: 'sunny',
      next: ['planner'],
    });
    expect(clientResultDelta(RUN, waiting, call, undefined, '', NOW).base_version).toBe(0);
  });
});
