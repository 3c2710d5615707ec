import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type RunEvent, componentIdOfNode, graphNodeName } from '@switchyard/contracts';
import { TestStack, pureLoopCanvas, readSse, waitFor } from '@switchyard/testing';
import { dsl, golden, runGoldenTurns } from './graph-fixtures';

// Inline pure nodes (docs/architecture.md, "Where a node runs"): the orchestrator runs a canvas's
// pure components (Begin, Switch, VariableAssigner, loops, data components) and a PuppyEngine
// workflow's ifelse and modify edges in the step's transaction. The same graph agents run on a stack with inline execution on (the default) and on
// one with SWITCHYARD_INLINE_NODES=off (every node over NATS): the same actions, the same events,
// the same answers — and only with it off does the planner run the pure components.

interface Observed {
  answer: string;
  actions: { node: string; next: string[]; summary: string; result: unknown; error?: unknown }[];
  /** `node_started` and `action` events of the run's stream, in order, by node. */
  events: string[];
}

interface AllGolden {
  answer: string;
  path: string[];
  inputs: { turns: { query: string; resume?: Record<string, unknown> }[] };
}

const LOOP_TURNS = 6;

/** all.json without its dangling `CodeExec:FunnyBroomsShare` target (refused on save). */
function allCanvas(): { components: Record<string, { obj: { params: Record<string, unknown> } }> } {
  const canvas = dsl('all.json') as {
    components: Record<string, { obj: { params: Record<string, unknown> } }>;
  };
  const route = canvas.components['Switch:Route'].obj.params as { conditions?: { to: string[] }[] };
  for (const cond of route.conditions ?? []) {
    cond.to = cond.to.filter((id) => id !== 'CodeExec:FunnyBroomsShare');
  }
  return canvas;
}

/** A canvas of `components` (`[name, params, downstream, parent?]`), each one's upstream filled in. */
function canvasOf(
  components: Record<string, [string, Record<string, unknown>, string[], string?]>,
): Record<string, unknown> {
  return {
    components: Object.fromEntries(
      Object.entries(components).map(([id, [name, params, downstream, parent]]) => [
        id,
        {
          obj: { component_name: name, params },
          downstream,
          upstream: Object.keys(components).filter((k) => components[k][2].includes(id)),
          ...(parent ? { parent_id: parent } : {}),
        },
      ]),
    ),
  };
}

// RAGFlow's accumulating loop: the body's VariableAssigner sets its Loop's own variable
// (`Loop:Grow@total *= 3`, set_variable_value on `cpn@root`), and the Loop's termination condition
// reads it before each turn: 1 → 3 → 9 → 27 → 81, and the fifth check ends it.
const GROW = canvasOf({
  begin: ['Begin', {}, ['Loop:Grow']],
  'Loop:Grow': [
    'Loop',
    {
      loop_variables: [{ variable: 'total', input_mode: 'constant', type: 'number', value: 1 }],
      logical_operator: 'and',
      loop_termination_condition: [
        { variable: 'Loop:Grow@total', operator: '≥', input_mode: 'constant', value: 81 },
      ],
      maximum_loop_count: 20,
    },
    ['Message:Grown'],
  ],
  'LoopItem:GrowStart': ['LoopItem', {}, ['VariableAssigner:Triple'], 'Loop:Grow'],
  'VariableAssigner:Triple': [
    'VariableAssigner',
    { variables: [{ variable: 'Loop:Grow@total', operator: '*=', parameter: 3 }] },
    [],
    'Loop:Grow',
  ],
  'Message:Grown': ['Message', { content: ['total={Loop:Grow@total}'] }, []],
});

// RAGFlow's counter loop left by ExitLoop: `Loop:Tick@n += 1` each turn, and a Switch in the body
// leaves once n ≥ 4 (the Loop's own condition, n ≥ 100, never holds first).
const TICK = canvasOf({
  begin: ['Begin', {}, ['Loop:Tick']],
  'Loop:Tick': [
    'Loop',
    {
      loop_variables: [{ variable: 'n', input_mode: 'constant', type: 'number', value: 0 }],
      logical_operator: 'and',
      loop_termination_condition: [
        { variable: 'Loop:Tick@n', operator: '≥', input_mode: 'constant', value: 100 },
      ],
      maximum_loop_count: 50,
    },
    ['Message:Ticked'],
  ],
  'LoopItem:TickStart': ['LoopItem', {}, ['VariableAssigner:Inc'], 'Loop:Tick'],
  'VariableAssigner:Inc': [
    'VariableAssigner',
    { variables: [{ variable: 'Loop:Tick@n', operator: '+=', parameter: 1 }] },
    ['Switch:Enough'],
    'Loop:Tick',
  ],
  'Switch:Enough': [
    'Switch',
    {
      conditions: [
        {
          items: [{ cpn_id: 'Loop:Tick@n', operator: '≥', value: '4' }],
          logical_operator: 'and',
          to: ['ExitLoop:Done'],
        },
      ],
      end_cpn_ids: ['StringTransform:Rest'],
    },
    ['ExitLoop:Done', 'StringTransform:Rest'],
    'Loop:Tick',
  ],
  'StringTransform:Rest': [
    'StringTransform',
    { method: 'merge', script: 'n is {Loop:Tick@n}', delimiters: [','], split_ref: '' },
    [],
    'Loop:Tick',
  ],
  'ExitLoop:Done': ['ExitLoop', {}, [], 'Loop:Tick'],
  'Message:Ticked': ['Message', { content: ['n={Loop:Tick@n}'] }, []],
});
const SCENARIOS = ['var_assigner', 'iteration', 'condition'] as const;
const seen: Record<'on' | 'off', Map<string, Observed>> = { on: new Map(), off: new Map() };
/** Per mode: graph nodes the planner's node runtime ran (its task metric). */
const plannerRan: Record<'on' | 'off', Set<string>> = { on: new Set(), off: new Set() };
/** The same, after the PuppyEngine workflow ran too (its `graph.begin` runs in the planner). */
const plannerRanPuppy: Record<'on' | 'off', Set<string>> = { on: new Set(), off: new Set() };

async function observe(stack: TestStack, runId: string): Promise<Observed> {
  await waitFor('the run to end', async () =>
    ['succeeded', 'failed', 'cancelled'].includes((await stack.api('GET', `/v1/runs/${runId}`)).body.status),
  );
  const run = (await stack.api('GET', `/v1/runs/${runId}`)).body;
  expect(run.error).toBeNull();
  expect(run.status).toBe('succeeded');
  const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as Observed['actions'];
  const read = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
    headers: { Authorization: `Bearer ${stack.key}` },
    timeoutMs: 30_000,
  });
  expect(read.status).toBe(200);
  const events = read.frames
    .filter((f) => f.event === 'node_started' || f.event === 'action')
    .map((f) => `${f.event} ${(JSON.parse(f.data) as RunEvent<'action' | 'node_started'>).payload.node}`);
  // Every action was announced by its node_started (inline or not).
  expect(events.filter((e) => e.startsWith('action ')).length).toBe(actions.length);
  expect(events.filter((e) => e.startsWith('node_started ')).length).toBeGreaterThan(0);
  return {
    answer: run.output.answer as string,
    actions: actions.map((a) => ({
      node: a.node,
      next: a.next,
      summary: a.summary,
      // The start action names the agent, which each stack created with an id of its own.
      result: a.node === 'start' ? null : a.result,
      ...(a.error ? { error: a.error } : {}),
    })),
    events,
  };
}

async function plannerGraphTasks(stack: TestStack): Promise<Set<string>> {
  const text = await (await fetch(`http://127.0.0.1:${stack.ports.get('planner')}/metrics`)).text();
  const nodes = [...text.matchAll(/switchyard_node_task_seconds_count\{[^}]*node="(graph\.[^"]+)"/g)].map(
    (m) => m[1],
  );
  return new Set(nodes);
}

describe.each(['on', 'off'] as const)('inline execution %s', (mode) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await TestStack.start({
      script: 'apps/planner/test/fixtures/graph.script.json',
      // On: chains unbounded here, so no pure component of these runs goes over NATS.
      env:
        mode === 'on'
          ? {
              SWITCHYARD_INLINE_NODES: 'on',
              SWITCHYARD_INLINE_MAX_CHAIN: '10000',
              SWITCHYARD_INLINE_MAX_MS: '10000',
            }
          : { SWITCHYARD_INLINE_NODES: 'off' },
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it(`a Loop of ${LOOP_TURNS} turns of pure components`, async () => {
    const agent = await stack.api('POST', '/v1/agents', {
      name: 'pure-loop',
      kind: 'graph',
      dsl: pureLoopCanvas(LOOP_TURNS),
    });
    expect(agent.status).toBe(201);
    const res = await stack.api('POST', '/v1/runs', { agent_id: agent.body.id, input: { prompt: 'count' } });
    expect(res.status).toBe(202);
    const o = await observe(stack, res.body.run_id as string);
    // RAGFlow's Message template drops the blank after a reference's semicolon.
    expect(o.answer).toBe(`count=${LOOP_TURNS};turn ${LOOP_TURNS}.`);
    // start, Begin, Loop, 6 turns of 5 components, the 7th LoopItem (the loop is over), the Message.
    expect(o.actions).toHaveLength(3 + LOOP_TURNS * 5 + 2);
    seen[mode].set('loop', o);
  });

  it.each([
    ['grow', GROW, 'total=81', 4],
    ['tick', TICK, 'n=4', 4],
  ] as const)(
    'a Loop whose body sets its own variable (%s): the answer RAGFlow computes',
    async (key, canvas, answer, turns) => {
      const agent = await stack.api('POST', '/v1/agents', {
        name: `loop-${key}`,
        kind: 'graph',
        dsl: canvas,
      });
      expect(agent.status).toBe(201);
      const res = await stack.api('POST', '/v1/runs', { agent_id: agent.body.id, input: { prompt: 'go' } });
      expect(res.status).toBe(202);
      const o = await observe(stack, res.body.run_id as string);
      expect(o.answer).toBe(answer);
      const assigner = key === 'grow' ? 'VariableAssigner:Triple' : 'VariableAssigner:Inc';
      expect(o.actions.filter((a) => componentIdOfNode(a.node) === assigner)).toHaveLength(turns);
      seen[mode].set(key, o);
    },
  );

  it('an Iteration body that says {index} and {item}: the answer RAGFlow gave for its references', async () => {
    const patched = allCanvas();
    patched.components['StringTransform:FmtItem'].obj.params['script'] = '{index}: {item}';
    const agent = await stack.api('POST', '/v1/agents', { name: 'all-aliases', kind: 'graph', dsl: patched });
    expect(agent.status).toBe(201);
    const g = golden<AllGolden>('all.iteration');
    const o = await observe(stack, await runGoldenTurns(stack, agent.body.id as string, g));
    expect(o.answer).toBe(g.answer);
    expect(o.answer).toContain('0: ');
    seen[mode].set('aliases', o);
  });

  it.each(SCENARIOS)('all.%s: the answer and path RAGFlow gave', async (scenario) => {
    const patched = allCanvas();
    const agent = await stack.api('POST', '/v1/agents', {
      name: `all-${scenario}`,
      kind: 'graph',
      dsl: patched,
    });
    expect(agent.status).toBe(201);
    const g = golden<AllGolden>(`all.${scenario}`);
    const runId = await runGoldenTurns(stack, agent.body.id as string, g);
    const o = await observe(stack, runId);
    expect(o.answer).toBe(g.answer);
    const path = o.actions
      .filter((a) => !(a.result as { paused?: boolean } | null)?.paused)
      .map((a) => componentIdOfNode(a.node))
      .filter((id): id is string => id !== undefined);
    expect(path).toEqual(g.path);
    seen[mode].set(scenario, o);
  });

  it('records which graph nodes the planner ran', async () => {
    plannerRan[mode] = await plannerGraphTasks(stack);
    expect([...plannerRan[mode]]).toContain(graphNodeName('Message:Done'));
  });

  it('a PuppyEngine workflow: an ifelse edge, then the two modify edges its cases enable', async () => {
    const w = JSON.parse(readFileSync(join(__dirname, 'fixtures/puppy/ifelse.json'), 'utf8')) as {
      version?: string;
      edges: Record<string, { data: { cases: Record<string, Record<string, unknown>> } }>;
    };
    w.version = '0.2';
    for (const c of Object.values(w.edges['ifelse-426782387'].data.cases)) {
      c['thens'] = c['then'];
      delete c['then'];
    }
    const agent = await stack.api('POST', '/v1/agents', { name: 'puppy-ifelse', kind: 'graph', dsl: w });
    expect(agent.status).toBe(201);
    const res = await stack.api('POST', '/v1/runs', { agent_id: agent.body.id, input: { prompt: 'go' } });
    expect(res.status).toBe(202);
    const o = await observe(stack, res.body.run_id as string);
    expect(o.answer).toBe('hello \n\ngoodbye world');
    expect(o.actions.map((a) => componentIdOfNode(a.node) ?? a.node)).toEqual([
      'start',
      'begin',
      'ifelse-426782387',
      'edge-34567432132',
      'edge-65762984',
      'end',
    ]);
    // Over NATS, the two modify edges of one step start in either order: their events as a set.
    seen[mode].set('puppy', { ...o, events: [...o.events].sort() });
    plannerRanPuppy[mode] = await plannerGraphTasks(stack);
  });
});

describe('inline on and off', () => {
  it('give the same actions, events and answers', () => {
    for (const key of ['loop', 'grow', 'tick', 'aliases', ...SCENARIOS, 'puppy']) {
      const on = seen.on.get(key);
      const off = seen.off.get(key);
      expect(on).toBeDefined();
      expect(on).toEqual(off);
    }
  });

  it('run the pure components in the orchestrator when on, in the planner when off', () => {
    const pure = [
      'begin',
      'Loop:Count',
      'LoopItem:Start',
      'VariableAssigner:Inc',
      'Switch:Check',
      'Switch:Route',
    ];
    for (const node of pure.map(graphNodeName)) {
      expect(plannerRan.off.has(node)).toBe(true);
      expect(plannerRan.on.has(node)).toBe(false);
    }
    // A Message streams a model's or a template's text, a workflow's end its answer: the planner
    // runs them either way.
    expect(plannerRan.on.has(graphNodeName('Message:Done'))).toBe(true);
    expect(plannerRanPuppy.on.has(graphNodeName('end'))).toBe(true);
    for (const node of ['ifelse-426782387', 'edge-34567432132', 'edge-65762984'].map(graphNodeName)) {
      expect(plannerRanPuppy.off.has(node)).toBe(true);
      expect(plannerRanPuppy.on.has(node)).toBe(false);
    }
  });
});
