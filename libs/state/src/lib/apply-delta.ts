import { applyOperation, type Operation } from 'fast-json-patch';
import type { z } from 'zod';
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

/** What zod keeps of a schema that the walk below reads (zod v4's `_zod.def`). */
interface SchemaDef {
  type: string;
  checks?: unknown[];
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  element?: z.ZodType;
}
const defOf = (schema: z.ZodType): SchemaDef => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

/**
 * The container schema a value sits in, past `optional`/`nullable`, when it is a plain object,
 * record (of string keys) or array: no checks or refinements that would read the container as a
 * whole (sizes, cross-field rules). Undefined otherwise.
 */
function plainContainer(schema: z.ZodType | undefined): SchemaDef | undefined {
  let def = schema && defOf(schema);
  while (def && (def.type === 'optional' || def.type === 'nullable') && def.innerType) {
    def = defOf(def.innerType);
  }
  if (!def || def.checks?.length) {
    return undefined;
  }
  if (def.type === 'record') {
    const key = def.keyType && defOf(def.keyType);
    return key?.type === 'string' && !key.checks?.length ? def : undefined;
  }
  return def.type === 'object' || def.type === 'array' ? def : undefined;
}

const INDEX = /^(0|[1-9]\d*)$/;

/** The schema of `container`'s member `key` (a path segment); undefined where it has none. */
function memberSchema(container: SchemaDef, key: string): z.ZodType | undefined {
  switch (container.type) {
    case 'object':
      return container.shape && Object.hasOwn(container.shape, key) ? container.shape[key] : undefined;
    case 'record':
      return container.valueType;
    default:
      return key === '-' || INDEX.test(key) ? container.element : undefined;
  }
}

/** What an op leaves to validate: the value at `path` against `schema` (`last`: the array's newest element). */
interface LocalCheck {
  field: Field;
  /** Segments below the field, to the container; then the member's key. */
  container: string[];
  key: string;
  schema: z.ZodType;
}

/**
 * How to validate what `op` changed, given that the field was valid before: the value it wrote,
 * against the schema at its place (O(that value)), when every schema on the way is a plain
 * container and the op cannot move or drop what another check reads: an add or replace of an
 * object's declared member or a record's entry, a record entry's removal (nothing to check), an
 * array's element replaced in place or appended (`-`). Anything else — the field itself replaced,
 * an array element inserted or removed (indices shift), an object member removed, a refined
 * schema — validates the field whole (`'whole'`).
 */
function localCheck(op: JsonPatchOperation, field: Field): LocalCheck | 'whole' | 'none' {
  const segments = segmentsOf(op.path);
  if (segments.length < 2) {
    return 'whole';
  }
  let container = plainContainer(FIELD_SCHEMAS[field]);
  for (const segment of segments.slice(1, -1)) {
    container = container && plainContainer(memberSchema(container, segment));
  }
  const key = segments[segments.length - 1];
  const schema = container && memberSchema(container, key);
  if (!container || !schema) {
    return 'whole';
  }
  if (op.op === 'remove') {
    return container.type === 'record' ? 'none' : 'whole';
  }
  if (container.type === 'array' && (op.op === 'add') !== (key === '-')) {
    return 'whole'; // an insertion at an index, or a replace of `-`
  }
  return { field, container: segments.slice(1, -1), key, schema };
}

/**
 * The value a check reads in the patched state, or undefined when it is gone: a later op of the
 * same patch replaced or removed a container on its path, and that op's own check covers it.
 * An appended element is read as the array's last: appends to one array are counted (`appended`).
 */
function valueOf(
  state: RuntimeState,
  check: LocalCheck,
  appended: Map<string, number>,
): { values: unknown[]; at: (string | number)[][] } | undefined {
  let node: unknown = state[check.field];
  for (const segment of check.container) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) {
      return undefined;
    }
    node = (node as Record<string, unknown>)[segment];
  }
  if (node === null || typeof node !== 'object') {
    return undefined;
  }
  if (Array.isArray(node) && check.key === '-') {
    // All of this patch's appends to this array, once: its last k elements.
    const id = appendsId(check);
    const k = appended.get(id);
    if (k === undefined) {
      return { values: [], at: [] };
    }
    appended.delete(id);
    const from = Math.max(0, node.length - k);
    return {
      values: node.slice(from),
      at: node.slice(from).map((_, i) => [...check.container, from + i]),
    };
  }
  if (!Object.hasOwn(node, check.key)) {
    return undefined;
  }
  return { values: [(node as Record<string, unknown>)[check.key]], at: [[...check.container, check.key]] };
}

/** Which array a check's appends go to (the field and the path below it). */
const appendsId = (check: LocalCheck): string => JSON.stringify([check.field, ...check.container]);

/** Like describeZodError, with the paths taken from the field down (`at`: where the value sits). */
function describeAt(error: z.ZodError, at: (string | number)[]): string {
  return error.issues
    .slice(0, 8)
    .map((i) => `${[...at, ...i.path].map(String).join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

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
 * Checks that `patch` left `next` valid, each field it changed having been valid before (the
 * state a delta applies to always is). What an op wrote is checked where it sits
 * (localCheck); a field that cannot be checked so is validated whole. So a step that appends to
 * a long chat history or updates one todo costs O(what it wrote), not O(the field).
 */
function validatePatched(next: RuntimeState, patch: JsonPatchOperation[]): void {
  const whole = new Set<Field>();
  const checks: LocalCheck[] = [];
  const appended = new Map<string, number>();
  for (const op of patch) {
    if (op.op === 'test') {
      continue;
    }
    const field = topLevelField(op.path) as Field;
    const check = localCheck(op, field);
    if (check === 'whole') {
      whole.add(field);
    } else if (check !== 'none') {
      checks.push(check);
      if (check.key === '-') {
        const id = appendsId(check);
        appended.set(id, (appended.get(id) ?? 0) + 1);
      }
    }
  }
  for (const field of whole) {
    const parsed = FIELD_SCHEMAS[field].safeParse(next[field]);
    if (!parsed.success) {
      throw new DeltaRejectedException(
        DeltaRejectionCode.InvalidState,
        `patch leaves "${field}" invalid: ${describeZodError(parsed.error)}`,
      );
    }
  }
  for (const check of checks) {
    if (whole.has(check.field)) {
      continue;
    }
    const found = valueOf(next, check, appended);
    for (let i = 0; i < (found?.values.length ?? 0); i++) {
      const parsed = check.schema.safeParse(found?.values[i]);
      if (!parsed.success) {
        throw new DeltaRejectedException(
          DeltaRejectionCode.InvalidState,
          `patch leaves "${check.field}" invalid: ${describeAt(parsed.error, found?.at[i] ?? [])}`,
        );
      }
    }
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
    validatePatched(next, patch);
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
