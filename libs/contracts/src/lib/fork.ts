import { z } from 'zod';
import type { Action } from './state.schema';

/** The node of the action with which the orchestrator starts a branch of a thread (a fork). */
export const FORK_NODE = 'fork';
/** The orchestrator's own actions: they are not the delta of a task. */
export const ORCHESTRATOR_NODES: readonly string[] = ['start', FORK_NODE];

const END = 'end';

/**
 * The join rule: the union of a step's `next` lists, in order. A node named k times by one action
 * is k tasks (a fan-out of k calls); named by several actions it runs as often as the action
 * naming it most often asks, not once per action.
 */
export function unionOfNext(actions: readonly Pick<Action, 'next'>[]): string[] {
  const want = new Map<string, number>();
  for (const a of actions) {
    const counts = new Map<string, number>();
    for (const n of a.next) {
      if (n !== END) {
        counts.set(n, (counts.get(n) ?? 0) + 1);
      }
    }
    for (const [n, c] of counts) {
      want.set(n, Math.max(want.get(n) ?? 0, c));
    }
  }
  return [...want].flatMap(([n, c]) => Array<string>(c).fill(n));
}

/**
 * The state fields a fork may edit. The rest belong to the reducer (`version`, `action_history`,
 * `usage`) or to the run (`thread_id`, `run_id`, `turn`): editing them would rewrite history.
 */
export const EDITABLE_STATE_FIELDS = [
  'prompts',
  'user_context',
  'memory',
  'output_style',
  'scenario',
  'output_structure',
  'task_goals',
  'origin_files',
  'preprocessed_files',
  'todos',
  'chat_history',
  'graph',
] as const;

/** A JSON Patch operation on an editable field (`add`, `replace`, `remove`, `test`). */
export const StateEditSchema = z
  .object({
    op: z.enum(['add', 'replace', 'remove', 'test']),
    path: z
      .string()
      .refine(
        (p) => (EDITABLE_STATE_FIELDS as readonly string[]).includes(p.split('/')[1] ?? ''),
        `must be a JSON Pointer into an editable state field (${EDITABLE_STATE_FIELDS.join(', ')})`,
      ),
    value: z.unknown().optional(),
  })
  .strict()
  .refine((op) => op.op === 'remove' || op.value !== undefined, {
    message: 'value is required for add, replace and test',
    path: ['value'],
  });
export type StateEdit = z.infer<typeof StateEditSchema>;

/**
 * What a run that forks its thread carries in its input: the thread goes back to `from_version`
 * (plus `edits`) in a new version written by the `fork` action, whose `next` is what was still to
 * run at `from_version` — so nothing before the fork point runs again.
 */
export interface RunFork {
  from_version: number;
  edits: StateEdit[];
  /**
   * `continue`: run what was pending at the fork point; `record`: only write the branch's first
   * version (an edit of the state), the run ends at once; `turn`: then start a new turn with the
   * run's prompt (the fork point must end a turn).
   */
  mode: 'continue' | 'record' | 'turn';
  /** The task id under which the fork's delta is recorded (unique per delta). */
  task_id: string;
  /** What was pending at the fork point (the fork action's `next`). */
  next: string[];
}

/** The `fork` action's result. */
export interface ForkResult {
  from_version: number;
  edits: number;
}
