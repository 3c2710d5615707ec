import { type GraphException } from '../graph.exception';
import { editorToEngine } from './editor';
import {
  fieldContents,
  formatTemplate,
  generateNodeEdge,
  generatorCalls,
  numberedItems,
  pyJsonDumpsIndented,
} from './generator';
import { validateWorkflow } from './parse-workflow';
import { PUPPY_SYSTEM_PROMPTS } from './prompt-templates';
import { blockViews } from './scheduler';
import { type PuppyWorkflow, PuppyWorkflowSchema } from './workflow.schema';

// Expected values are what PuppyEngine's GeneratorConfigParser and llm_generation (run with
// python3 on the archived sources and prompt_templates.yaml) build for the same blocks.

const wf = (raw: unknown): PuppyWorkflow => PuppyWorkflowSchema.parse(raw);
const views = (w: PuppyWorkflow, blocks: Record<string, unknown>) => blockViews(w, { begin: { blocks } });

const generator = (data: Record<string, unknown>, blocks: Record<string, unknown>) =>
  wf({ blocks: { ...blocks, out: { label: 'out', data: {} } }, edges: { g: { type: 'generator', data } } });

describe(generatorCalls.name, () => {
  it('numbers several docs and keeps one query as it is (TestKit generator.json)', () => {
    const w = generator(
      {
        queries: ['1'],
        docs: ['2', '3'],
        sys_prompt_template: 'default',
        user_prompt_template: 'default',
        structured_output: false,
        inputs: { '1': 'a', '2': 'b', '3': 'c' },
        outputs: { out: 'out' },
      },
      {
        '1': { label: 'a', data: { content: 'What are the products of the company PuppyAgent?' } },
        '2': {
          label: 'b',
          data: {
            content:
              'PuppyAgent is an AI Startup that serves a SaaS platform `PuppyAgent` for Enterprise Knowledge Bse Workflow Builder',
          },
        },
        '3': {
          label: 'c',
          data: { content: 'PuppyAgent open sourced an AI Agent framework called `Puppys`' },
        },
      },
    );
    const calls = generatorCalls(w, 'g', views(w, {}));
    expect(calls).toEqual([
      {
        messages: [
          { role: 'system', content: PUPPY_SYSTEM_PROMPTS['default'] },
          {
            role: 'user',
            content:
              "Provided Context:\nDocument 1: PuppyAgent is an AI Startup that serves a SaaS platform `PuppyAgent` for Enterprise Knowledge Bse Workflow Builder\n\nDocument 2: PuppyAgent open sourced an AI Agent framework called `Puppys`\n\nUser's Question:\nWhat are the products of the company PuppyAgent?\n",
          },
        ],
        structured: false,
      },
    ]);
    expect(PUPPY_SYSTEM_PROMPTS['default']).toMatch(
      /^You are an helpful assistant that answers user's questions based on the provided context\. Your responses should always be relevant and well-informed\. \n\n## Follow/,
    );
  });

  it('serializes lists and objects as upstream, loops a looped query, asks for JSON last', () => {
    const w = generator(
      {
        queries: ['q', 'n'],
        docs: ['d1', 'd2', 'd3', 'd4'],
        sys_prompt_template: 'text_summarization',
        user_prompt_template: 'text_summarization',
        structured_output: true,
        inputs: { q: 'q', n: 'n', d1: 'd1', d2: 'd2', d3: 'd3', d4: 'd4' },
        outputs: { out: 'out' },
      },
      {
        q: { label: 'q', type: 'structured', data: { content: ['first?', 'second?'] }, looped: true },
        n: { label: 'n', data: { content: 3 } },
        d1: { label: 'd1', type: 'structured', data: { content: ['para one', 'para two'] } },
        d2: {
          label: 'd2',
          type: 'structured',
          data: { content: { name: 'Ünïcode', tags: [1, 2.5, null, true], nested: { a: [], b: {} } } },
        },
        d3: { label: 'd3', type: 'structured', data: { content: [1, 'x'] } },
        d4: { label: 'd4', type: 'structured', data: { content: [] } },
      },
    );
    const docs =
      'Please analyze and summarize the following documents:\n\nDocuments:\nDocument 1: para one\n\npara two\n\nDocument 2: {\n  "name": "Ünïcode",\n  "tags": [\n    1,\n    2.5,\n    null,\n    true\n  ],\n  "nested": {\n    "a": [],\n    "b": {}\n  }\n}\n\nDocument 3: [\n  1,\n  "x"\n]\n\nDocument 4: \n\n';
    const calls = generatorCalls(w, 'g', views(w, {}));
    expect(calls.map((c) => c.messages.slice(1))).toEqual([
      [
        { role: 'user', content: `${docs}User's Request:\nQuery 1: first?\n\nQuery 2: 3\n` },
        { role: 'user', content: 'in json format' },
      ],
      [
        { role: 'user', content: `${docs}User's Request:\nQuery 1: second?\n\nQuery 2: 3\n` },
        { role: 'user', content: 'in json format' },
      ],
    ]);
    expect(calls[0].messages[0].content).toBe(PUPPY_SYSTEM_PROMPTS['text_summarization']);
    expect(calls.every((c) => c.structured)).toBe(true);
  });

  it('finds no user template for a system-only name, and takes default when none is named', () => {
    const one = generator(
      {
        queries: ['q'],
        docs: [],
        sys_prompt_template: 'data_cleaning',
        user_prompt_template: 'data_cleaning',
        inputs: { q: 'q' },
        outputs: { out: 'out' },
      },
      { q: { label: 'q', data: { content: 'hello' } } },
    );
    expect(generatorCalls(one, 'g', views(one, {}))[0].messages).toEqual([
      { role: 'system', content: PUPPY_SYSTEM_PROMPTS['data_cleaning'] },
      { role: 'user', content: '' },
    ]);
    const two = generator(
      { queries: ['q'], docs: ['d'], inputs: { q: 'q', d: 'd' }, outputs: { out: 'out' } },
      { q: { label: 'q', data: { content: 'hello' } }, d: { label: 'd', data: {} } },
    );
    expect(generatorCalls(two, 'g', views(two, { d: null }))[0].messages[1]).toEqual({
      role: 'user',
      content: "Provided Context:\nNone\n\nUser's Question:\nhello\n",
    });
  });
});

describe('generator helpers', () => {
  it('formats numbered items and templates as Python does', () => {
    expect(numberedItems([], 'Query')).toBe('');
    expect(numberedItems(['x'], 'Query')).toBe('x');
    expect(numberedItems(['x', 'y'], 'Document')).toBe('Document 1: x\n\nDocument 2: y');
    expect(formatTemplate('{context}|{query}|{context}', { context: '{query}', query: 'q' })).toBe(
      '{query}|q|{query}',
    );
    expect(fieldContents(['a', 'missing', 'b', 'c'], { a: [], b: true, c: 1.5 })).toEqual([
      '',
      'True',
      '1.5',
    ]);
    expect(pyJsonDumpsIndented({ a: [{ b: 'c' }] })).toBe(
      '{\n  "a": [\n    {\n      "b": "c"\n    }\n  ]\n}',
    );
  });
});

describe('generator edges at save', () => {
  const base = {
    blocks: { q: { label: 'q', data: { content: 'hi' } }, out: { label: 'out', data: {} } },
    edges: {
      g: {
        type: 'generator',
        data: { queries: ['q'], docs: [], inputs: { q: 'q' }, outputs: { out: 'out' } },
      },
    },
  };
  const problems = (edge: Record<string, unknown>) => {
    try {
      validateWorkflow({
        ...base,
        edges: { g: { type: 'generator', data: { ...base.edges.g.data, ...edge } } },
      });
      return [];
    } catch (err) {
      return (err as GraphException).problems.map((p) => `${p.edge}:${p.field}`);
    }
  };

  it('accepts a generator edge', () => {
    expect(problems({})).toEqual([]);
    expect(problems({ sys_prompt_template: 'content_retrieval', user_prompt_template: 'nope' })).toEqual([]);
  });

  it('refuses ids that are not inputs, and templates needing fields it never gives', () => {
    expect(problems({ docs: ['nope'] })).toEqual(['g:data.docs.0']);
    expect(problems({ queries: 'q' })).toEqual(['g:data.queries']);
    expect(problems({ user_prompt_template: 'task_prompt' })).toEqual(['g:data.user_prompt_template']);
    expect(problems({ sys_prompt_template: 3 })).toEqual(['g:data.sys_prompt_template']);
  });
});

describe(generateNodeEdge.name, () => {
  it('converts a Generate node as buildGenerateNodeJson does', () => {
    const engine = editorToEngine({
      blocks: [
        { id: 'q', type: 'text', data: { label: 'Question', content: 'why?' } },
        { id: 'd', type: 'text', data: { label: 'Doc', content: 'because' } },
        { id: 'o', type: 'text', data: { label: 'Answer', content: '' } },
        {
          id: 'gen',
          type: 'generate',
          data: {
            query_ids: { id: 'q', label: 'Question' },
            document_ids: { id: 'd', label: 'Doc' },
            promptTemplate: 'data_analysis',
            structured_output: 1,
            base_url: ' ',
          },
        },
      ],
      edges: [
        { source: 'q', target: 'gen' },
        { source: 'd', target: 'gen' },
        { source: 'gen', target: 'o' },
      ],
    });
    expect(engine['edges']).toEqual({
      gen: {
        type: 'generator',
        data: {
          queries: ['q'],
          docs: ['d'],
          sys_prompt_template: 'data_analysis',
          user_prompt_template: 'data_analysis',
          hoster: 'openrouter',
          model: 'openai/gpt-5',
          max_tokens: 2048,
          inputs: { q: 'Question', d: 'Doc' },
          outputs: { o: 'Answer' },
          structured_output: true,
        },
      },
    });
  });
});
