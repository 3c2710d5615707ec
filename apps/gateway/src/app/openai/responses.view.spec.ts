import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ResponseRow } from './responses.repository';
import { ResponseEvents, type ResponseState, responseObject, stateOf } from './responses.view';

const row: ResponseRow = {
  id: '0b8e2f4c-1d2e-4f5a-8b9c-0d1e2f3a4b5c',
  tenant_id: 't',
  run_id: 'r',
  thread_id: 'th',
  previous_response_id: null,
  model: 'default',
  request: {
    instructions: null,
    tools: [],
    tool_choice: 'auto',
    text_format: { type: 'text' },
    metadata: {},
    user: null,
    background: false,
  },
  input: [],
  cursor: '0-0',
  answered: [],
  usage_before: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  response: null,
  created_at: new Date(),
};
const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
const inProgress: ResponseState = {
  status: 'in_progress',
  output: [],
  error: null,
  usage: null,
  completedAt: null,
};

/** The events a response streams, folded by the official client's own accumulator. */
function streamed(drive: (events: ResponseEvents) => void): {
  events: ResponseStreamEvent[];
  final: Response;
} {
  const frames: string[] = [];
  drive(new ResponseEvents((f) => frames.push(f), row.id));
  const events = frames.map((f) => JSON.parse(f.split('\ndata: ')[1]) as ResponseStreamEvent);
  let snapshot: Response | undefined;
  for (const e of events) {
    snapshot = accumulateResponse(e, snapshot);
  }
  if (!snapshot) {
    throw new Error('no events');
  }
  return { events, final: snapshot };
}

describe(ResponseEvents.name, () => {
  it("streams an answer the client's accumulator folds into the final response", () => {
    const state = stateOf(row.id, { kind: 'answer', content: 'Hello there.' }, usage);
    const { events, final } = streamed((ev) => {
      ev.started(responseObject(row, inProgress));
      ev.delta('Hello');
      ev.delta(' there');
      ev.finished(responseObject(row, state), state);
    });
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      // What the token events missed is sent before the end.
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(final.status).toBe('completed');
    expect(final.output).toEqual(state.output);
    expect(final.usage?.total_tokens).toBe(5);
  });

  it('streams function calls whole', () => {
    const call = { id: 'call_1', task_id: 't1', name: 'get_weather', arguments: { city: 'Oslo' } };
    const state = stateOf(row.id, { kind: 'tool_calls', calls: [call as never] }, usage);
    const { final, events } = streamed((ev) => {
      ev.started(responseObject(row, inProgress));
      ev.finished(responseObject(row, state), state);
    });
    expect(events.some((e) => e.type === 'response.function_call_arguments.done')).toBe(true);
    expect(final.output).toEqual([
      {
        type: 'function_call',
        id: 'fc_call_1',
        call_id: 'call_1',
        name: 'get_weather',
        arguments: '{"city":"Oslo"}',
        status: 'completed',
      },
    ]);
  });

  it('a failed run ends as response.failed with its error; a cancelled one carries its status', () => {
    const failed = stateOf(
      row.id,
      { kind: 'failed', status: 'failed', message: 'the run failed: boom' },
      usage,
    );
    const { events, final } = streamed((ev) => {
      ev.started(responseObject(row, inProgress));
      ev.finished(responseObject(row, failed), failed);
    });
    expect(events[events.length - 1].type).toBe('response.failed');
    expect(final.error).toEqual({ code: 'server_error', message: 'the run failed: boom' });
    const cancelled = stateOf(row.id, { kind: 'failed', status: 'cancelled', message: 'x' }, usage);
    expect(cancelled).toMatchObject({ status: 'cancelled', error: null });
  });
});
