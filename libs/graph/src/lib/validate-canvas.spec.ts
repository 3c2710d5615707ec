import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GraphErrorCode, GraphException, type GraphProblem } from './graph.exception';
import { componentsFromGraph, parseCanvas } from './normalize-dsl';
import { canvasProblems, validateCanvas } from './validate-canvas';

const FIXTURES = join(__dirname, '../../fixtures/ragflow');
const raw = (name: string) =>
  JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>;

/** A minimal valid components-form DSL; cases patch it. */
function minimalDsl(): { components: Record<string, Record<string, unknown>> } {
  return {
    components: {
      begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['Switch:S'], upstream: [] },
      'Switch:S': {
        obj: {
          component_name: 'Switch',
          params: {
            conditions: [
              {
                logical_operator: 'and',
                items: [{ cpn_id: 'sys.query', operator: '=', value: 'a' }],
                to: ['Message:A'],
              },
            ],
            end_cpn_ids: ['Message:B'],
          },
        },
        downstream: ['Message:A', 'Message:B'],
        upstream: ['begin'],
      },
      'Message:A': {
        obj: { component_name: 'Message', params: { content: ['A {sys.query}'] } },
        downstream: [],
        upstream: ['Switch:S'],
      },
      'Message:B': {
        obj: { component_name: 'Message', params: { content: ['B'] } },
        downstream: [],
        upstream: ['Switch:S'],
      },
    },
  };
}

describe(parseCanvas.name, () => {
  it.each([
    ['components form', 'all.json', 'begin', 49],
    ['graph-only form', 'switch.json', 'Switch:EmptySquidsJudge', 6],
    ['template wrapper', 'customer_feedback_dispatcher.json', 'Categorize:FourTeamsFold', undefined],
    ['legacy lower-case ids', 'retrieval_and_generate.json', 'retrieval:0', undefined],
  ])('reads the %s (%s)', (_form, file, id, count) => {
    const canvas = parseCanvas(raw(file));
    expect(canvas.components[id]).toBeDefined();
    expect(canvas.components['begin'].name).toBe('Begin');
    if (count !== undefined) {
      expect(Object.keys(canvas.components)).toHaveLength(count);
    }
  });

  it('takes display names from the graph', () => {
    expect(parseCanvas(raw('switch.json')).names['begin']).toBeDefined();
  });

  it.each([
    [null, 'dsl'],
    [{ title: 'no dsl' }, 'components'],
    [{ components: { begin: { obj: {} } } }, 'obj.component_name'],
  ])('refuses %j naming field %s', (dsl, field) => {
    try {
      parseCanvas(dsl);
      throw new Error('parsed');
    } catch (e) {
      expect(e).toBeInstanceOf(GraphException);
      expect((e as GraphException).problems.map((p) => p.field)).toContain(field);
    }
  });
});

describe(componentsFromGraph.name, () => {
  const sw = componentsFromGraph(raw('switch.json')['graph'] as never);
  const qc = componentsFromGraph(raw('questions_category.json')['graph'] as never);

  it.each([
    ['begin', ['Switch:EmptySquidsJudge'], []],
    ['Message:HappyLandsFly', [], ['Switch:EmptySquidsJudge']],
  ])('derives downstream/upstream of %s from edges', (id, downstream, upstream) => {
    expect(sw[id]).toMatchObject({ downstream, upstream });
  });

  it('turns Categorize items into category_description with `to` from the item handles', () => {
    const params = qc['Categorize:TamePartsLook'].obj.params as Record<string, unknown>;
    expect(params['items']).toBeUndefined();
    expect(params['category_description']).toMatchObject({
      casual: { to: ['Message:AngryTeamsKnock'], examples: [expect.stringContaining('How are you doing?')] },
      complain: { to: ['Message:PunyPetsFollow'] },
    });
  });

  it.each([
    ['Note', false],
    ['Tool', false],
    ['Message', true],
  ])('a %s node becomes a component: %s', (label, kept) => {
    const graph = { nodes: [{ id: 'n1', data: { label, form: {} } }], edges: [] };
    expect(Object.keys(componentsFromGraph(graph))).toEqual(kept ? ['n1'] : []);
  });

  it('makes a bottom sub-agent a tool of its parent, not a component', () => {
    const graph = {
      nodes: [
        { id: 'Agent:Top', data: { label: 'Agent', form: { llm_id: 'm' } } },
        { id: 'Agent:Sub', data: { label: 'Agent', name: 'sub', form: { llm_id: 'm' } } },
        { id: 'Tool:T', data: { label: 'Tool', form: {} } },
      ],
      edges: [
        { source: 'Agent:Top', target: 'Agent:Sub', targetHandle: 'agentTop' },
        { source: 'Agent:Top', target: 'Tool:T' },
      ],
    };
    const components = componentsFromGraph(graph);
    expect(Object.keys(components)).toEqual(['Agent:Top']);
    expect(components['Agent:Top']).toMatchObject({
      downstream: [],
      obj: { params: { tools: [{ id: 'Agent:Sub', name: 'sub' }] } },
    });
  });
});

describe(validateCanvas.name, () => {
  it.each([
    ['switch.json'],
    ['questions_category.json'],
    ['customer_feedback_dispatcher.json'],
    ['agent_msg.json'],
    ['retrieval_and_generate.json'],
  ])('accepts %s', (file) => {
    expect(() => validateCanvas(raw(file))).not.toThrow();
  });

  it('refuses all.json as shipped: its Switch routes to a component that does not exist', () => {
    expect(canvasProblems(parseCanvas(raw('all.json')))).toEqual([
      expect.objectContaining({
        code: GraphErrorCode.DanglingReference,
        component: 'Switch:Route',
        field: 'conditions.4.to',
        message: expect.stringContaining('CodeExec:FunnyBroomsShare'),
      }),
    ]);
  });

  type Patch = (dsl: ReturnType<typeof minimalDsl>) => void;
  const params = (dsl: ReturnType<typeof minimalDsl>, id: string) =>
    (dsl.components[id]['obj'] as { params: Record<string, unknown> }).params;
  it.each<[string, Patch, Partial<GraphProblem>]>([
    [
      'unknown component',
      (d) => ((d.components['Message:B']['obj'] as { component_name: string }).component_name = 'Teleport'),
      { code: GraphErrorCode.UnknownComponent, component: 'Message:B', field: 'component_name' },
    ],
    [
      'an ExeSQL on an engine not queried here, as a component',
      (d) => {
        const obj = d.components['Message:B']['obj'] as { component_name: string; params: object };
        obj.component_name = 'ExeSQL';
        obj.params = { db_type: 'mssql', sql: 'SELECT 1' };
      },
      {
        code: GraphErrorCode.UnsupportedComponent,
        component: 'Message:B',
        field: 'db_type',
        message: 'ExeSQL cannot query db_type "mssql" here; it queries mysql, mariadb, oceanbase, postgres',
      },
    ],
    [
      'an ExeSQL on an engine not queried here, as an Agent tool',
      (d) => {
        const obj = d.components['Message:B']['obj'] as { component_name: string; params: object };
        obj.component_name = 'Agent';
        obj.params = { llm_id: 'm', tools: [{ component_name: 'ExeSQL', params: { db_type: 'trino' } }] };
      },
      {
        code: GraphErrorCode.UnsupportedComponent,
        component: 'Message:B',
        field: 'params.tools.0.params.db_type',
      },
    ],
    [
      'dangling downstream',
      (d) => (d.components['Message:A']['downstream'] = ['Message:Nope']),
      { code: GraphErrorCode.DanglingReference, component: 'Message:A', field: 'downstream' },
    ],
    [
      'dangling Switch target',
      (d) => (params(d, 'Switch:S')['end_cpn_ids'] = ['Ghost']),
      { code: GraphErrorCode.DanglingReference, component: 'Switch:S', field: 'end_cpn_ids' },
    ],
    [
      'dangling exception_goto',
      (d) => (params(d, 'Message:B')['exception_goto'] = ['Message:Nope']),
      { code: GraphErrorCode.DanglingReference, component: 'Message:B', field: 'exception_goto' },
    ],
    [
      'dangling text reference',
      (d) => (params(d, 'Message:B')['content'] = ['{Ghost:X@content}']),
      { code: GraphErrorCode.DanglingReference, component: 'Message:B', field: 'content.0' },
    ],
    [
      'cycle outside a Loop',
      (d) => (d.components['Message:A']['downstream'] = ['begin']),
      { code: GraphErrorCode.Cycle, component: 'Message:A', field: 'downstream' },
    ],
    [
      'Switch without conditions',
      (d) => (params(d, 'Switch:S')['conditions'] = []),
      { code: GraphErrorCode.MissingParam, component: 'Switch:S', field: 'conditions' },
    ],
    [
      'Switch condition without targets',
      (d) => ((params(d, 'Switch:S')['conditions'] as { to: string[] }[])[0].to = []),
      { code: GraphErrorCode.MissingParam, component: 'Switch:S', field: 'conditions.0.to' },
    ],
    [
      'Switch without ELSE',
      (d) => (params(d, 'Switch:S')['end_cpn_ids'] = []),
      { code: GraphErrorCode.MissingParam, component: 'Switch:S', field: 'end_cpn_ids' },
    ],
    [
      'Message without content',
      (d) => (params(d, 'Message:B')['content'] = []),
      { code: GraphErrorCode.MissingParam, component: 'Message:B', field: 'content' },
    ],
    [
      'LLM without a model',
      (d) => (d.components['LLM:L'] = { obj: { component_name: 'LLM', params: { llm_id: '' } } }),
      { code: GraphErrorCode.MissingParam, component: 'LLM:L', field: 'llm_id' },
    ],
    [
      'Agent with a negative max_retries',
      (d) =>
        (d.components['Agent:G'] = {
          obj: { component_name: 'Agent', params: { llm_id: 'm', max_retries: -1 } },
        }),
      { code: GraphErrorCode.MissingParam, component: 'Agent:G', field: 'max_retries' },
    ],
    [
      'LLM waiting longer than 600 s after an error',
      (d) =>
        (d.components['LLM:L'] = {
          obj: { component_name: 'LLM', params: { llm_id: 'm', delay_after_error: 601 } },
        }),
      { code: GraphErrorCode.MissingParam, component: 'LLM:L', field: 'delay_after_error' },
    ],
    [
      'Iteration without the list it iterates',
      (d) => (d.components['Iteration:I'] = { obj: { component_name: 'Iteration', params: {} } }),
      { code: GraphErrorCode.MissingParam, component: 'Iteration:I', field: 'items_ref' },
    ],
    [
      'Categorize category without `to`',
      (d) =>
        (d.components['Categorize:C'] = {
          obj: { component_name: 'Categorize', params: { category_description: { a: { to: [] } } } },
        }),
      { code: GraphErrorCode.MissingParam, component: 'Categorize:C', field: 'category_description.a.to' },
    ],
    ['no Begin', (d) => delete d.components['begin'], { component: 'begin', field: 'component_name' }],
    [
      'an id that cannot be referenced',
      (d) => (d.components['Message-X'] = { obj: { component_name: 'Message', params: { content: ['x'] } } }),
      { code: GraphErrorCode.InvalidDsl, component: 'Message-X', field: 'id' },
    ],
  ])('refuses a DSL with %s, naming the component and field', (_case, patch, problem) => {
    const dsl = minimalDsl();
    patch(dsl);
    let error: unknown;
    try {
      validateCanvas(dsl);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GraphException);
    expect((error as GraphException).problems).toContainEqual(expect.objectContaining(problem));
    expect((error as GraphException).message).toContain(`component ${problem.component}`);
  });

  it('runs FillUp as UserFillUp and DocsGenerator as DocGenerator (their other names)', () => {
    const canvas = validateCanvas({
      components: {
        begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['F:1'], upstream: [] },
        'F:1': { obj: { component_name: 'FillUp', params: {} }, downstream: ['D:1'], upstream: ['begin'] },
        'D:1': {
          obj: { component_name: 'DocsGenerator', params: { content: '{F:1@x}' } },
          downstream: [],
          upstream: ['F:1'],
        },
      },
    });
    expect(canvas.components['F:1'].name).toBe('UserFillUp');
    expect(canvas.components['D:1'].name).toBe('DocGenerator');
  });

  it("lists a component's references before its params' problems", () => {
    const dsl = minimalDsl();
    dsl.components['Agent:G'] = {
      obj: {
        component_name: 'Agent',
        params: { llm_id: '', tools: [{ component_name: 'ExeSQL', params: { db_type: 'trino' } }] },
      },
      downstream: ['Ghost'],
      upstream: [],
    };
    expect(canvasProblems(parseCanvas(dsl)).map((p) => [p.code, p.field])).toEqual([
      [GraphErrorCode.DanglingReference, 'downstream'],
      [GraphErrorCode.UnsupportedComponent, 'params.tools.0.params.db_type'],
      [GraphErrorCode.MissingParam, 'llm_id'],
    ]);
  });

  it('accepts the minimal DSL itself', () => {
    expect(Object.keys(validateCanvas(minimalDsl()).components)).toHaveLength(4);
  });
});
