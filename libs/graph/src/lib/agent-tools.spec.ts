import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AgentParamsSchema,
  RetrievalParamsSchema,
  citationPrompt,
  hashStr2Int,
  hybridSimilarity,
  indexedToolName,
  keywordSimilarity,
  kbPrompt,
  retrievalDatasets,
  retrievalFunction,
  subAgentFunction,
  subAgentUserPrompt,
  toolRunningNote,
} from './agent-tools';
import { componentsFromGraph, parseCanvas } from './normalize-dsl';

const FIXTURES = join(__dirname, '../../fixtures');
const json = (path: string) =>
  JSON.parse(readFileSync(join(FIXTURES, path), 'utf8')) as Record<string, unknown>;

interface GoldenCall {
  tools_offered: string[];
  messages: { role: string; content: string | null }[];
}
const subaget = json('expected/subaget.weather_via_subagent.json') as { llm: GoldenCall[] };

describe(subAgentFunction.name, () => {
  const canvas = parseCanvas(json('ragflow/subaget.json'));
  const tools = AgentParamsSchema.parse(canvas.components['Agent:GentleCrabsWrite'].params).tools ?? [];

  it('offers a sub-agent under its display name with its index, as RAGFlow did', () => {
    expect(tools).toHaveLength(1);
    expect(subAgentFunction(tools[0], 0).name).toBe(subaget.llm[0].tools_offered[0]);
  });

  it('asks for the order, the reasoning and the context; the form’s user_prompt is the default', () => {
    const fn = subAgentFunction(tools[0], 0);
    expect(fn.parameters.required).toEqual(['user_prompt', 'reasoning', 'context']);
    expect(fn.parameters.properties['user_prompt']).toMatchObject({
      default: 'This is the order you need to send to the agent.',
    });
    expect(fn.description).toBe('这是一个用于特定任务的代理。');
  });

  it('falls back to RAGFlow’s description and replaces spaces in the name', () => {
    const fn = subAgentFunction({ component_name: 'Agent', name: 'Web Researcher', params: {} }, 3);
    expect(fn).toMatchObject({
      name: 'Web_Researcher_3',
      description: 'This is an agent for a specific task.',
    });
  });
});

describe(subAgentUserPrompt.name, () => {
  it('builds the REASONING / CONTEXT / QUERY message the sub-agent received upstream', () => {
    const args = {
      user_prompt: '查询北京天气',
      reasoning: 'weather task',
      context: 'user asks Beijing weather',
    };
    expect(subAgentUserPrompt(args)).toBe(subaget.llm[1].messages[1].content);
  });

  it.each([
    [{ user_prompt: 'just do it' }, 'just do it'],
    [{ user_prompt: 'q', context: 'c' }, '\nCONTEXT:\nc\n\nQUERY:\nq\n'],
    [{ reasoning: 'r' }, undefined],
  ])('%j → %j', (args, expected) => {
    expect(subAgentUserPrompt(args)).toBe(expected);
  });
});

describe(componentsFromGraph.name, () => {
  it('derives sub-agents recursively, with their own forms and Tool nodes left out', () => {
    const graph = {
      nodes: [
        { id: 'begin', data: { label: 'Begin', form: {} } },
        { id: 'Agent:A', data: { label: 'Agent', name: 'top', form: { tools: [] } } },
        { id: 'Agent:B', data: { label: 'Agent', name: 'middle', form: { sys_prompt: 'b' } } },
        { id: 'Agent:C', data: { label: 'Agent', name: 'leaf', form: { sys_prompt: 'c' } } },
        { id: 'Tool:T', data: { label: 'Tool', form: {} } },
      ],
      edges: [
        { source: 'begin', target: 'Agent:A' },
        { source: 'Agent:A', sourceHandle: 'agentBottom', target: 'Agent:B', targetHandle: 'agentTop' },
        { source: 'Agent:B', sourceHandle: 'agentBottom', target: 'Agent:C', targetHandle: 'agentTop' },
        { source: 'Agent:C', sourceHandle: 'tool', target: 'Tool:T', targetHandle: 'end' },
      ],
    };
    const components = componentsFromGraph(graph);
    expect(Object.keys(components)).toEqual(['begin', 'Agent:A']);
    const [middle] = components['Agent:A'].obj.params?.['tools'] as {
      name: string;
      params: { sys_prompt: string; tools: { name: string; params: { tools: unknown[] } }[] };
    }[];
    expect(middle).toMatchObject({ component_name: 'Agent', id: 'Agent:B', name: 'middle' });
    expect(middle.params.sys_prompt).toBe('b');
    expect(middle.params.tools).toHaveLength(1);
    expect(middle.params.tools[0]).toMatchObject({ name: 'leaf', params: { sys_prompt: 'c', tools: [] } });
    expect(components['Agent:A'].downstream).toEqual([]);
  });
});

describe(retrievalFunction.name, () => {
  it('is search_my_dateset with its index and a required query', () => {
    const fn = retrievalFunction({ kb_ids: [] }, 0);
    expect(fn.name).toBe('search_my_dateset_0');
    expect(fn.parameters.required).toEqual(['query']);
    expect(retrievalFunction({ description: 'the manuals' }, 2)).toMatchObject({
      name: 'search_my_dateset_2',
      description: 'the manuals',
    });
  });

  it('reads RAGFlow’s defaults and prefers dataset_ids over the deprecated kb_ids', () => {
    const p = RetrievalParamsSchema.parse({ kb_ids: ['a'] });
    expect(p).toMatchObject({ top_n: 8, similarity_threshold: 0.2 });
    expect(retrievalDatasets(p)).toEqual(['a']);
    expect(retrievalDatasets(RetrievalParamsSchema.parse({ kb_ids: ['a'], dataset_ids: ['b'] }))).toEqual([
      'b',
    ]);
    expect(() => RetrievalParamsSchema.parse({ top_n: 0 })).toThrow();
  });
});

describe(kbPrompt.name, () => {
  it.each([
    ['abc', 500, 17],
    ['chunk-1', 500, 336],
    ['abc', 10 ** 8, 66479517],
  ])('hash_str2int(%j, %d) = %d (Python’s value)', (line, mod, expected) => {
    expect(hashStr2Int(line, mod)).toBe(expected);
  });

  it('formats chunks as kb_prompt with hashed ids, title, URL and content', () => {
    expect(
      kbPrompt([
        { chunk_id: 'abc', content: 'To clean the filter, rinse it.', title: 'user_guide.pdf' },
        { chunk_id: 'chunk-1', content: 'Two\nlines', url: 'https://x.test/a' },
        { chunk_id: 'empty', content: '' },
      ]),
    ).toBe(
      '\nID: 17\n├── Title: user_guide.pdf\n└── Content:\nTo clean the filter, rinse it.\n' +
        '\nID: 336\n├── URL: https://x.test/a\n└── Content:\nTwo\nlines',
    );
  });

  it('matches the shape of the usage guide’s recorded prompt', () => {
    const g = json('expected/smart_customer_service_specialist.usage_guide.json') as { llm: GoldenCall[] };
    const user = g.llm[1].messages[1].content ?? '';
    const formatted = kbPrompt([
      {
        chunk_id: 'x',
        content: 'To clean the filter, remove it and rinse with water.',
        title: 'user_guide.pdf',
      },
    ]);
    expect(user.replace(/ID: \d+/, 'ID: N')).toContain(formatted.replace(/ID: \d+/, 'ID: N'));
  });
});

describe('tool notes and citations', () => {
  it('notes a running tool as RAGFlow streams it', () => {
    expect(toolRunningNote(indexedToolName('search_my_dateset', 0))).toBe(
      'Running the search_my_dateset_0 tool...',
    );
  });

  it('appends RAGFlow’s citation guidelines as the usage guide’s system prompt shows them', () => {
    const g = json('expected/smart_customer_service_specialist.usage_guide.json') as { llm: GoldenCall[] };
    expect(g.llm[1].messages[0].content?.endsWith(citationPrompt())).toBe(true);
  });

  it('defaults max_rounds to 5 and cites, as RAGFlow’s params do', () => {
    expect(AgentParamsSchema.parse({})).toMatchObject({ max_rounds: 5, cite: true });
    expect(AgentParamsSchema.parse({ max_rounds: 1 }).max_rounds).toBe(1);
  });
});

describe(keywordSimilarity.name, () => {
  it.each([
    ['Compare X100 and X200', 'X100: 2 fans, 40dB. X200: 3 fans, 35dB.', 0.5],
    ['How do I clean the filter?', 'To clean the filter, remove it and rinse with water.', 0.5],
    ['北京天气', '北京今天晴', 0.75],
    ['???', 'anything', 0],
    ['RAGFlow', 'ragflow is an engine', 1],
  ])('%j in %j → %d', (query, text, expected) => {
    expect(keywordSimilarity(query, text)).toBe(expected);
  });

  it('weighs keyword and vector similarity by keywords_similarity_weight', () => {
    expect(hybridSimilarity(0.5, 0.2, 0.7)).toBeCloseTo(0.41);
    expect(hybridSimilarity(1, 0, 0)).toBe(0);
  });
});
