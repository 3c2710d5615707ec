import {
  type Action,
  type CommittedDelta,
  FORK_NODE,
  type ForkResult,
  type JsonPatchOperation,
  type RuntimeState,
  type StateEdit,
  ZERO_USAGE,
} from '@switchyard/contracts';
import { applyDelta } from './apply-delta';

// Fields a rewind never touches: the thread's identity and the reducer's counter.
const KEPT = new Set(['thread_id', 'version']);

/**
 * The patch that takes `head` back to `at` (an earlier version of the same thread) for the run
 * `runId`: every other field replaced by its value at `at` (removed when `at` has none). It is
 * O(state) — a fork is rare; a step's delta stays O(delta).
 */
export function rewindPatch(head: RuntimeState, at: RuntimeState, runId: string): JsonPatchOperation[] {
  if (head.version === at.version) {
    // Going on from the head itself: nothing to take back (O(1), not O(state)).
    return [{ op: 'replace', path: '/run_id', value: runId }];
  }
  const ops: JsonPatchOperation[] = [];
  const fields = new Set([...Object.keys(head), ...Object.keys(at)]);
  for (const field of fields) {
    if (KEPT.has(field)) {
      continue;
    }
    const path = `/${field}`;
    if (field === 'run_id') {
      ops.push({ op: 'replace', path, value: runId });
    } else if (Object.hasOwn(at, field)) {
      // A copy: the edits after it are applied in place, and `at` may be a cached state.
      const value = structuredClone((at as Record<string, unknown>)[field]);
      ops.push({ op: Object.hasOwn(head, field) ? 'replace' : 'add', path, value });
    } else {
      ops.push({ op: 'remove', path });
    }
  }
  return ops;
}

/**
 * The `fork` delta: `head` goes back to `at`, then `edits` apply; the action's `next` is what was
 * pending at `at`. Applying it checks the edits (a rejected one throws DeltaRejectedException).
 */
export function forkDelta(input: {
  head: RuntimeState;
  at: RuntimeState;
  runId: string;
  edits: readonly StateEdit[];
  next: readonly string[];
  now?: Date;
}): { delta: CommittedDelta; state: RuntimeState } {
  const { head, at } = input;
  const now = (input.now ?? new Date()).toISOString();
  const action: Action = {
    id: head.version + 1,
    node: FORK_NODE,
    preparation: '',
    summary: input.edits.length
      ? `Branched from version ${at.version} with ${input.edits.length} edit(s) to the state`
      : `Branched from version ${at.version}`,
    result: { from_version: at.version, edits: input.edits.length } satisfies ForkResult,
    usage: { ...ZERO_USAGE },
    next: [...input.next],
    started_at: now,
    finished_at: now,
    attempt: 1,
  };
  const delta: CommittedDelta = {
    action,
    patch: [...rewindPatch(head, at, input.runId), ...(input.edits as JsonPatchOperation[])],
  };
  return { delta, state: applyDelta(head, delta) };
}
