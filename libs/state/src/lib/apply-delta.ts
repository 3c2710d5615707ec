import { applyOperation, type Operation } from 'fast-json-patch';
import {
  type CommittedDelta,
  type JsonPatchOperation,
  type RuntimeState,
  RuntimeStateSchema,
  type Usage,
  describeZodError,
  ZERO_USAGE,
} from '@switchyard/contracts';
import { DeltaRejectedException, DeltaRejectionCode } from './state.exception';
import { topLevelField } from './allow-list';

export function emptyState(threadId: string, runId: string): RuntimeState {
  return {
    thread_id: threadId,
    run_id: runId,
    turn: 0,
    version: 0,
    prompts: [],
    user_context: {},
    memory: [],
    output_style: '',
    scenario: '',
    output_structure: [],
    task_goals: [],
    origin_files: [],
    preprocessed_files: { documents: {}, tables: {}, other_files: {} },
    todos: [],
    action_history: [],
    chat_history: [],
    usage: [],
  };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}

const FIELD_SCHEMAS = RuntimeStateSchema.shape;
const PATCH_OPS = new Set(['add', 'replace', 'remove', 'test']);
type Field = keyof typeof FIELD_SCHEMAS;

/** JSON pointer segments of `path` (RFC 6901: `~1` is `/`, `~0` is `~`). */
function segmentsOf(path: string): string[] {
  return path
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Replaces every container on the way to `path`'s last segment with a shallow copy (once per
 * delta: `copies` holds the ones already made), so applying the op in place changes only copies.
 */
function copyAlong(root: Record<string, unknown>, path: string, copies: Set<unknown>): void {
  const segments = segmentsOf(path);
  let parent: Record<string, unknown> | unknown[] = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const key = segments[i];
    const child: unknown = (parent as Record<string, unknown>)[key];
    if (child === null || typeof child !== 'object') {
      return; // the patch fails on this path: nothing to copy
    }
    let copy = child as Record<string, unknown> | unknown[];
    if (!copies.has(child)) {
      copy = Array.isArray(child) ? child.slice() : { ...(child as Record<string, unknown>) };
      (parent as Record<string, unknown>)[key] = copy;
      copies.add(copy);
    }
    parent = copy;
  }
}

/**
 * The one reducer: applies a committed delta and returns the next state.
 *
 * Pure and non-mutating, but it copies only the containers along the patch's paths (structural
 * sharing), so applying a delta costs O(size of the delta + the paths' widths) plus the touched
 * fields' validation, not a copy of the state.
 * Order: the patch first (the start action's patch opens the turn's lists), then the action is
 * appended to `action_history[turn]` and its usage added to `usage[turn]`; `version` + 1.
 */
export function applyDelta(state: RuntimeState, delta: CommittedDelta): RuntimeState {
  const next: RuntimeState = { ...state };
  const patch: JsonPatchOperation[] = delta.patch ?? [];
  if (patch.length > 0) {
    const touched = new Set<Field>();
    for (const op of patch) {
      // Only value-carrying ops: `move`/`copy` would read a field this reducer did not copy.
      if (!PATCH_OPS.has(op.op)) {
        throw new DeltaRejectedException(
          DeltaRejectionCode.PatchFailed,
          `patch op "${String(op.op)}" is not allowed`,
        );
      }
      const field = topLevelField(op.path);
      if (!Object.hasOwn(FIELD_SCHEMAS, field)) {
        throw new DeltaRejectedException(
          DeltaRejectionCode.PatchFailed,
          `patch path "${op.path}" names no state field`,
        );
      }
      touched.add(field as Field);
    }
    // Copy-on-write along each op's path: the containers an op changes are shallow copies made
    // for this delta, the rest is shared with `state` — O(the paths' widths), not O(the field).
    // Each op's path is copied just before the op applies, on the document the earlier ops left:
    // after a removal from an array, `/list/0` is another element than it was before the patch.
    const copies = new Set<unknown>();
    try {
      patch.forEach((op, i) => {
        copyAlong(next as unknown as Record<string, unknown>, op.path, copies);
        applyOperation(next, op as Operation, true, true, false, i);
      });
    } catch (err) {
      throw new DeltaRejectedException(
        DeltaRejectionCode.PatchFailed,
        `patch could not be applied: ${(err as Error).message.split('\n')[0]}`,
      );
    }
    for (const field of touched) {
      const parsed = FIELD_SCHEMAS[field].safeParse(next[field]);
      if (!parsed.success) {
        throw new DeltaRejectedException(
          DeltaRejectionCode.InvalidState,
          `patch leaves "${field}" invalid: ${describeZodError(parsed.error)}`,
        );
      }
    }
  }
  const turn = next.turn;
  next.action_history = next.action_history.slice();
  next.usage = next.usage.slice();
  // The start action's patch moves `turn` one past the recorded turns: open the turn's lists,
  // which belong to the reducer alone. Only a patch that sets `/turn` opens a turn.
  const opensTurn = patch.some((op) => op.op === 'replace' && op.path === '/turn');
  if (opensTurn && turn === next.action_history.length && turn === next.usage.length) {
    next.action_history.push([]);
    next.usage.push({ ...ZERO_USAGE });
  }
  const turnActions = next.action_history[turn];
  if (!turnActions || next.usage[turn] === undefined) {
    throw new DeltaRejectedException(
      DeltaRejectionCode.TurnMismatch,
      `turn ${turn} is not open (the thread has ${state.action_history.length} turns)`,
    );
  }
  next.action_history[turn] = [...turnActions, delta.action];
  next.usage[turn] = addUsage(next.usage[turn], delta.action.usage);
  next.version = state.version + 1;
  return next;
}

/** The patch with which the orchestrator's `start` action opens turn `turn` of a thread. */
export function openTurnPatch(input: {
  run_id: string;
  turn: number;
  prompt: string;
  origin_files?: RuntimeState['origin_files'];
  /** Earlier messages a client brought along (OpenAI-style), recorded before the prompt. */
  history?: RuntimeState['chat_history'];
}): JsonPatchOperation[] {
  return [
    { op: 'replace', path: '/run_id', value: input.run_id },
    { op: 'replace', path: '/turn', value: input.turn },
    { op: 'add', path: '/prompts/-', value: input.prompt },
    { op: 'add', path: '/task_goals/-', value: '' },
    { op: 'add', path: '/todos/-', value: [] },
    ...(input.history ?? []).map((m) => ({ op: 'add' as const, path: '/chat_history/-', value: m })),
    { op: 'add', path: '/chat_history/-', value: { role: 'user', content: input.prompt } },
    { op: 'replace', path: '/origin_files', value: input.origin_files ?? [] },
  ];
}

export function sumUsages(list: readonly Usage[]): Usage {
  return list.reduce(addUsage, { ...ZERO_USAGE });
}
