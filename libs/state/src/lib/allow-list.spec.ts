import { type JsonPatchOperation, NodeNameSchema, RuntimeStateSchema } from '@switchyard/contracts';
import { allowedPaths, assertPatchAllowed, patchesOtherOutputs, topLevelField } from './allow-list';
import { DeltaRejectedException, DeltaRejectionCode } from './state.exception';

const ALL_FIELDS = Object.keys(RuntimeStateSchema.shape);
const REDUCER_ONLY = ['version', 'action_history', 'usage', 'thread_id'];

/** What DESIGN.md §3 lets each node patch: [node, service, allowed top-level fields]. */
const NODES: [string, string | undefined, string[]][] = [
  ['start', undefined, ['run_id', 'turn', 'prompts', 'task_goals', 'todos', 'chat_history', 'origin_files']],
  ['intake', 'planner', ['task_goals', 'scenario', 'output_style', 'output_structure', 'user_context']],
  ['planner', 'planner', ['task_goals', 'todos', 'scenario', 'output_style', 'output_structure']],
  ['reflection', 'reflection', ['todos']],
  ['memory', 'retrieval', ['memory']],
  ['retrieval', 'retrieval', ['memory']],
  ['output', 'output', ['chat_history', 'output_structure']],
  ['calculator', 'tool-executor', ['preprocessed_files']],
  ['mcp.github.search_issues', 'tool-executor', ['preprocessed_files']],
  ['graph.begin', 'planner', ['graph']],
  ['mystery', undefined, []],
  ['mystery', 'some-other-service', []],
];

const ALLOWED = NODES.flatMap(([node, service, fields]) =>
  fields.map((field) => [node, service, field] as const),
);
const REFUSED = NODES.flatMap(([node, service, fields]) =>
  ALL_FIELDS.filter((f) => !fields.includes(f)).map((field) => [node, service, field] as const),
);

function refusalOf(fn: () => unknown): DeltaRejectedException {
  try {
    fn();
  } catch (err) {
    if (err instanceof DeltaRejectedException) {
      return err;
    }
    throw err;
  }
  throw new Error('expected the patch to be refused');
}

const replace = (path: string): JsonPatchOperation => ({ op: 'replace', path, value: 'x' });

describe(allowedPaths.name, () => {
  it.each(NODES)('lists what %s (service %s) may patch', (node, service, fields) => {
    expect([...allowedPaths(node, service)].sort()).toEqual([...fields].sort());
  });

  it('names only real state fields', () => {
    for (const [node, service] of NODES) {
      for (const field of allowedPaths(node, service)) {
        expect(ALL_FIELDS).toContain(field);
      }
    }
  });

  it("prefers a named node's list over its service's", () => {
    expect(allowedPaths('planner', 'tool-executor')).not.toContain('preprocessed_files');
    expect(allowedPaths('reflection', 'tool-executor')).toEqual(['todos']);
  });
});

describe(assertPatchAllowed.name, () => {
  it.each(ALLOWED)('lets %s (service %s) patch %s', (node, service, field) => {
    const patch: JsonPatchOperation[] = [
      replace(`/${field}`),
      { op: 'add', path: `/${field}/0/nested`, value: 1 },
      { op: 'remove', path: `/${field}/0` },
      { op: 'test', path: `/${field}`, value: 'x' },
    ];

    expect(() => assertPatchAllowed(node, service, patch)).not.toThrow();
  });

  it.each(REFUSED)('refuses %s (service %s) a patch to %s', (node, service, field) => {
    const err = refusalOf(() =>
      assertPatchAllowed(node, service, [{ op: 'add', path: `/${field}/-`, value: 1 }]),
    );

    expect(err.code).toBe(DeltaRejectionCode.PatchNotAllowed);
    expect(err.retryable).toBe(false);
  });

  it.each(NODES.flatMap(([node, service]) => REDUCER_ONLY.map((field) => [node, service, field] as const)))(
    'refuses %s (service %s) the reducer-owned field %s',
    (node, service, field) => {
      const err = refusalOf(() => assertPatchAllowed(node, service, [replace(`/${field}`)]));

      expect(err.code).toBe(DeltaRejectionCode.PatchNotAllowed);
    },
  );

  it('names the node, the refused path and what it may patch', () => {
    const err = refusalOf(() =>
      assertPatchAllowed('reflection', 'reflection', [{ op: 'add', path: '/memory/0/content', value: 'x' }]),
    );

    expect(err.message).toContain('"reflection"');
    expect(err.message).toContain('"/memory/0/content"');
    expect(err.message).toContain('todos');
  });

  it('says that a node without an allow-list may patch nothing', () => {
    const err = refusalOf(() => assertPatchAllowed('mystery', undefined, [replace('/scenario')]));

    expect(err.message).toContain('"mystery"');
    expect(err.message).toContain('"/scenario"');
    expect(err.message).toContain('nothing');
  });

  it('checks every operation, not only the first', () => {
    const err = refusalOf(() =>
      assertPatchAllowed('planner', 'planner', [
        replace('/scenario'),
        replace('/todos/0/0/status'),
        { op: 'add', path: '/usage/0', value: {} },
      ]),
    );

    expect(err.message).toContain('"/usage/0"');
  });

  it('accepts an empty patch from anyone, even a node without an allow-list', () => {
    expect(() => assertPatchAllowed('mystery', undefined, [])).not.toThrow();
  });

  it.each([
    ['a field that merely starts with an allowed name', '/todos_extra'],
    ['an escaped slash that is part of the field name', '/todos~10'],
    ['an empty field name', '/'],
  ])('refuses %s (%s)', (_name, path) => {
    expect(refusalOf(() => assertPatchAllowed('planner', 'planner', [replace(path)])).code).toBe(
      DeltaRejectionCode.PatchNotAllowed,
    );
  });

  it('refuses a path that is no JSON Pointer as patch_failed', () => {
    const err = refusalOf(() => assertPatchAllowed('planner', 'planner', [replace('todos')]));

    expect(err.code).toBe(DeltaRejectionCode.PatchFailed);
    expect(err.message).toContain('"todos"');
  });

  it('refuses a tool node named like an Object.prototype member (constructor)', () => {
    expect(NodeNameSchema.safeParse('constructor').success).toBe(true);
    expect(allowedPaths('constructor', 'tool-executor')).toEqual(['preprocessed_files']);

    const err = refusalOf(() => assertPatchAllowed('constructor', 'tool-executor', [replace('/todos')]));

    expect(err.code).toBe(DeltaRejectionCode.PatchNotAllowed);
  });
});

describe('graph component ownership', () => {
  const add = (path: string): JsonPatchOperation => ({ op: 'add', path, value: {} });

  it.each([
    ['graph.-switch---route', '/graph/outputs/Switch:Route'],
    ['graph.-message---a', '/graph/outputs/Message:A/content'],
    ['graph.-variable-assigner---set', '/graph/globals/env.counter'],
    ['graph.begin', '/graph'],
  ])('lets %s patch %s', (node, path) => {
    expect(() => assertPatchAllowed(node, 'planner', [add(path)])).not.toThrow();
  });

  it.each([
    ['graph.-switch---route', '/graph/outputs/Message:A'],
    ['graph.-switch---route', '/graph/outputs/Switch:RouteX'],
    ['graph.-message---a', '/graph'],
    ['graph.-message---a', '/todos'],
  ])('refuses %s patching %s', (node, path) => {
    expect(refusalOf(() => assertPatchAllowed(node, 'planner', [add(path)])).code).toBe(
      DeltaRejectionCode.PatchNotAllowed,
    );
  });
});

describe("a VariableAssigner setting other components' outputs", () => {
  const add = (path: string): JsonPatchOperation => ({ op: 'add', path, value: 3 });
  const node = 'graph.-variable-assigner---grow';

  it('is refused without the grant, allowed with it', () => {
    const patch = [add('/graph/outputs/VariableAssigner:Grow'), add('/graph/outputs/Loop:Grow/total')];

    expect(patchesOtherOutputs(node, patch)).toBe(true);
    expect(refusalOf(() => assertPatchAllowed(node, 'planner', patch)).code).toBe(
      DeltaRejectionCode.PatchNotAllowed,
    );
    expect(() => assertPatchAllowed(node, 'planner', patch, { assignsOutputs: true })).not.toThrow();
  });

  it.each(['/graph', '/graph/outputs', '/todos'])('is still refused %s', (path) => {
    expect(
      refusalOf(() => assertPatchAllowed(node, 'planner', [add(path)], { assignsOutputs: true })).code,
    ).toBe(DeltaRejectionCode.PatchNotAllowed);
  });

  it.each([
    [[add('/graph/outputs/VariableAssigner:Grow'), add('/graph/globals/env.x')], false],
    [[add('/graph/outputs/VariableAssigner:Grow/x')], false],
    [[add('/graph/outputs/VariableAssigner:GrowX')], true],
  ])('tells whether a patch writes other outputs (%j)', (patch, other) => {
    expect(patchesOtherOutputs(node, patch)).toBe(other);
    expect(patchesOtherOutputs('graph.begin', patch)).toBe(false);
  });
});

describe(topLevelField.name, () => {
  it.each([
    ['/todos/0/1/status', 'todos'],
    ['/scenario', 'scenario'],
    ['/prompts/-', 'prompts'],
    ['/a~1b/c', 'a/b'],
    ['/a~0b', 'a~b'],
    ['/~01', '~1'],
    ['/~10', '/0'],
    ['/~0~1/x', '~/'],
    ['/', ''],
  ])('reads %s as the field %j', (pointer, field) => {
    expect(topLevelField(pointer)).toBe(field);
  });

  it.each(['todos', 'todos/0', '', '#/todos'])('refuses %j, which is not a JSON Pointer', (path) => {
    const err = refusalOf(() => topLevelField(path));

    expect(err.code).toBe(DeltaRejectionCode.PatchFailed);
    expect(err.message).toContain(`"${path}"`);
  });
});
