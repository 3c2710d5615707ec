import { Role, Task, TaskState } from '@a2a-js/sdk';
import type { RunStatus } from '@switchyard/contracts';
import { type TaskRun, stateOf, statusesOf, taskOf } from './a2a.views';

const base: TaskRun = {
  id: '11111111-1111-4111-8111-111111111111',
  thread_id: '22222222-2222-4222-8222-222222222222',
  status: 'running',
  output: null,
  error: null,
  created_at: new Date('2026-01-01T00:00:00Z'),
  started_at: new Date('2026-01-01T00:00:01Z'),
  finished_at: null,
  prompt: 'what is up?',
  waiting: null,
};

describe(taskOf.name, () => {
  it('a finished run is a completed task: its answer the artifact (text, and data when structured)', () => {
    const task = taskOf({
      ...base,
      status: 'succeeded',
      output: { answer: '{"a":1}', structured: [{ id: 'x', content: { a: 1 } }] },
      finished_at: new Date('2026-01-01T00:00:05Z'),
    });
    expect(task.id).toBe(base.id);
    expect(task.contextId).toBe(base.thread_id);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.status?.timestamp).toBe('2026-01-01T00:00:05.000Z');
    expect(task.artifacts[0].parts.map((p) => p.content)).toEqual([
      { $case: 'text', value: '{"a":1}' },
      { $case: 'data', value: [{ id: 'x', content: { a: 1 } }] },
    ]);
    expect(task.history.map((m) => m.role)).toEqual([Role.ROLE_USER, Role.ROLE_AGENT]);
    // What the SDK puts on the wire reads back the same.
    expect(Task.fromJSON(Task.toJSON(task))).toEqual(task);
  });

  it('a waiting run wants input: the question and its schema are the status message', () => {
    const task = taskOf({
      ...base,
      status: 'waiting',
      waiting: {
        task_id: 't',
        node: 'ask_user',
        question: 'Which city?',
        input_schema: { type: 'object' },
        since: '',
      },
    });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(task.status?.message?.parts.map((p) => p.content)).toEqual([
      { $case: 'text', value: 'Which city?' },
      { $case: 'data', value: { input_schema: { type: 'object' } } },
    ]);
    expect(task.artifacts).toEqual([]);
  });

  it('a failed run says why; history is cut to the most recent messages asked for', () => {
    const task = taskOf({ ...base, status: 'failed', error: { message: 'boom' } }, 1);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(task.history).toHaveLength(1);
    expect(task.history[0].parts[0].content).toEqual({ $case: 'text', value: 'boom' });
    expect(taskOf(base, 0).history).toEqual([]);
  });
});

describe(statusesOf.name, () => {
  it('maps each task state back to the run statuses that show it', () => {
    const all: RunStatus[] = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled'];
    for (const s of all) {
      expect(statusesOf(stateOf(s))).toEqual([s]);
    }
    expect(statusesOf(TaskState.TASK_STATE_UNSPECIFIED)).toBeUndefined();
    expect(statusesOf(TaskState.TASK_STATE_REJECTED)).toEqual([]);
  });
});
