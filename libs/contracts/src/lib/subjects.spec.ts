import type { DeltaMessage, RunStartMessage, TaskMessage } from './messages.schema';
import {
  type PayloadOf,
  SUBJECTS,
  SUBJECT_PATTERNS,
  type Subject,
  deltaSubject,
  isTaskSubject,
  taskSubject,
} from './subjects';

/** The shape of JetStreamConnection.publish (libs/jetstream): the payload follows from the subject. */
type Publish = <S extends Subject>(subject: S, payload: PayloadOf<S>) => void;

// Compile-time checks (tsc type-checks the specs); never called.
export function publishTypeChecks(
  publish: Publish,
  task: TaskMessage,
  delta: DeltaMessage,
  start: RunStartMessage,
) {
  publish(taskSubject('tool-executor', 'calculator'), task);
  publish(deltaSubject('planner'), delta);
  publish(SUBJECTS.runStart, start);
  // @ts-expect-error a task subject carries a task message
  publish(taskSubject('tool-executor', 'calculator'), delta);
  // @ts-expect-error a delta subject carries a delta message
  publish(deltaSubject('planner'), task);
  // @ts-expect-error sy.run.start carries a run start message
  publish(SUBJECTS.runStart, task);
  // @ts-expect-error subject strings come from contracts
  publish('sy.other', start);
  // @ts-expect-error a task subject names a service and a node
  publish('sy.task.calculator', task);
}

describe(isTaskSubject.name, () => {
  it.each([
    ['sy.task.tool-executor.calculator', true],
    ['sy.task.tool-executor.mcp.github.search', true],
    ['human.ask_user', false],
    ['sy.task.calculator', false],
    ['sy.delta.planner', false],
  ])('%s → %s', (subject, want) => {
    expect(isTaskSubject(subject)).toBe(want);
  });
});

describe('SUBJECT_PATTERNS', () => {
  it.each([
    [SUBJECT_PATTERNS.task('calculator'), 'sy.task.*.calculator'],
    [SUBJECT_PATTERNS.taskPrefix('mcp.github'), 'sy.task.*.mcp.github.>'],
    [SUBJECT_PATTERNS.anyDelta, 'sy.delta.*'],
    [SUBJECT_PATTERNS.deltas, 'sy.delta.>'],
    [SUBJECT_PATTERNS.runs, 'sy.run.>'],
  ])('%s', (pattern, want) => {
    expect(pattern).toBe(want);
  });
});
