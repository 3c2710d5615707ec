import { llmCalls, runPureEdge, searchPlan, writeToOutputs } from './edge-run';
import { blockViews } from './scheduler';
import { type PuppyWorkflow, PuppyWorkflowSchema } from './workflow.schema';

const wf = (raw: unknown): PuppyWorkflow => PuppyWorkflowSchema.parse(raw);
const views = (w: PuppyWorkflow, blocks: Record<string, unknown>) => blockViews(w, { begin: { blocks } });

describe(llmCalls.name, () => {
  it('fills placeholders by label, splicing values as text (flow_test edge 2)', () => {
    const w = wf({
      blocks: {
        '2': { label: 'b', data: { content: '' } },
        '3': { label: 'c', data: { content: 'apple' } },
        '4': { label: 'd', data: {} },
      },
      edges: {
        e: {
          type: 'llm',
          data: {
            messages: [
              { role: 'system', content: 'count' },
              { role: 'user', content: '{{b}}, {{c}}' },
            ],
            inputs: { '2': 'b', '3': 'c' },
            outputs: { '4': 'd' },
          },
        },
      },
    });
    expect(llmCalls(w, 'e', views(w, { '2': 'I am Mei', '3': 'apple' }))).toEqual([
      {
        messages: [
          { role: 'system', content: 'count' },
          { role: 'user', content: 'I am Mei, apple' },
        ],
        structured: false,
      },
    ]);
  });

  it('makes one call per looped combination, in product order (loop_llm)', () => {
    const w = wf({
      blocks: {
        '2': { label: 'b', type: 'structured', data: { content: ['happy', 'yan'] }, looped: true },
        '3': { label: 'c', type: 'structured', data: { content: ['Hi', 'Bye'] }, looped: true },
        '4': { label: 'd', data: {} },
      },
      edges: {
        e: {
          type: 'llm',
          data: {
            messages: [
              { role: 'system', content: 'You are {{b}}' },
              { role: 'user', content: '{{c}}' },
            ],
            inputs: { '2': 'b', '3': 'c' },
            outputs: { '4': '' },
          },
        },
      },
    });
    const calls = llmCalls(w, 'e', views(w, { '2': ['happy', 'yan'], '3': ['Hi', 'Bye'] }));
    expect(calls.map((c) => c.messages.map((m) => m.content).join(' / '))).toEqual([
      'You are happy / Hi',
      'You are happy / Bye',
      'You are yan / Hi',
      'You are yan / Bye',
    ]);
    expect(writeToOutputs(w, 'e', ['1', '2'])).toEqual({ '4': ['1', '2'] });
    expect(writeToOutputs(w, 'e', ['1'])).toEqual({ '4': '1' });
  });

  it('sends the history first, dumps structures and asks for JSON (PuppyFlow llmnew, structured)', () => {
    const m = [{ role: 'user', content: '{{s}}' }];
    const w = wf({
      blocks: {
        s: { label: 's', type: 'structured', data: { content: [{ FAQ: ['野'] }] } },
        o: { label: 'o', data: {} },
      },
      edges: {
        e: {
          type: 'llm',
          data: {
            messages: m,
            chat_histories: m,
            structured_output: true,
            inputs: { s: 's' },
            outputs: { o: 'o' },
          },
        },
      },
    });
    expect(llmCalls(w, 'e', views(w, { s: [{ FAQ: ['野'] }] }))[0]).toEqual({
      messages: [
        { role: 'user', content: '{"FAQ": ["野"]}' },
        { role: 'user', content: '{"FAQ": ["野"]}' },
        { role: 'user', content: 'in json format' },
      ],
      structured: true,
    });
  });
});

describe(runPureEdge.name, () => {
  it('runs an edit_text modify with its placeholder (ifelse.json, edge-65762984)', () => {
    const w = wf({
      blocks: { '4': { label: 'd', data: { content: '' } }, '6': { label: 'f', data: { content: '' } } },
      edges: {
        e: {
          type: 'modify',
          data: {
            modify_type: 'edit_text',
            content: 'goodbye {{d}}',
            inputs: { '4': 'd' },
            outputs: { '6': 'f' },
          },
        },
      },
    });
    expect(
      runPureEdge(w, 'e', blockViews(w, { begin: { blocks: {} }, x: { blocks: { '4': 'world' } } })),
    ).toEqual({ '6': 'goodbye ' });
  });

  it('fills edit_structured value params per combination: whole → the value, spliced → escaped', () => {
    const w = wf({
      blocks: {
        doc: { label: 'doc', type: 'structured', data: { content: null } },
        name: { label: 'name', type: 'structured', looped: true, data: { content: null } },
        out: { label: 'out', type: 'structured', data: {} },
      },
      edges: {
        e: {
          type: 'modify',
          data: {
            modify_type: 'edit_structured',
            content: '{{doc}}',
            extra_configs: {
              operations: [
                { type: 'set_value', params: { path: ['who'], value: '{{name}}' } },
                { type: 'append', params: { path: ['log'], value: 'said "{{name}}"' } },
              ],
            },
            inputs: { doc: 'doc', name: 'name' },
            outputs: { out: 'out' },
          },
        },
      },
    });
    const doc = { log: [] };
    expect(runPureEdge(w, 'e', views(w, { doc, name: ['Ann', { n: 1 }] }))).toEqual({
      out: [
        { log: ['said "Ann"'], who: 'Ann' },
        { log: [`said "{\\'n\\': 1}"`], who: { n: 1 } },
      ],
    });
    expect(doc).toEqual({ log: [] });
  });

  it('writes a looped ifelse’s list of per-combination results to every output, as PuppyEngine does', () => {
    const w = wf({
      blocks: {
        l: { label: 'l', type: 'structured', data: { content: ['', 'x'] }, looped: true },
        o: { label: 'o', data: { content: '' } },
      },
      edges: {
        ie: {
          type: 'ifelse',
          data: {
            cases: {
              empty: {
                conditions: [{ block: 'l', condition: 'is_empty', operation: '/' }],
                thens: [{ from: 'l', to: 'o' }],
              },
            },
            inputs: { l: 'l' },
            outputs: { o: 'o' },
          },
        },
      },
    });
    expect(runPureEdge(w, 'ie', views(w, { l: ['', 'x'] }))).toEqual({ o: [{ o: '' }, {}] });
  });

  it('plans a vector search: the query (once per item when looped), sources, top_k, extra threshold', () => {
    const w = wf({
      blocks: {
        kb: { label: 'kb', type: 'structured', data: { content: ['星空', '野风'] } },
        q: { label: 'theme', data: { content: '' }, looped: true },
        out: { label: 'out', data: { content: '' } },
      },
      edges: {
        s: {
          type: 'search',
          data: {
            search_type: 'vector',
            top_k: 2,
            threshold: 0.7,
            extra_configs: { threshold: 0.2 },
            query_id: { q: 'theme' },
            data_source: [{ id: 'kb', index_item: { index_name: 'faq' } }],
            inputs: { kb: 'kb', q: 'theme' },
            outputs: { out: 'out' },
          },
        },
      },
    });
    expect(searchPlan(w, 's', views(w, { q: ['谁在野外加班？', 'price?'] }))).toEqual({
      queries: ['谁在野外加班？', 'price?'],
      sources: [{ id: 'kb', index_item: { index_name: 'faq' } }],
      topK: 2,
      threshold: 0.2,
    });
    // Upstream passes extra_configs' threshold only; top_k defaults to 10.
    const d = w.edges['s'].data as Record<string, unknown>;
    delete d['extra_configs'];
    delete d['top_k'];
    expect(searchPlan(w, 's', views(w, { q: 'x' }))).toEqual({
      queries: ['x'],
      sources: [{ id: 'kb', index_item: { index_name: 'faq' } }],
      topK: 10,
    });
    expect(() => runPureEdge(w, 's', views(w, { q: 'x' }))).toThrow('needs a model or a store');
  });
});
