import { type RunEvent } from '@switchyard/contracts';
import { PUPPY_SYSTEM_PROMPTS } from '@switchyard/graph';
import { TestStack, readSse } from '@switchyard/testing';
import { putScript } from './graph-fixtures';

// PuppyEngine's generator and load edges end to end: workflows saved through the gateway (engine
// JSON and PuppyFlow editor form), files uploaded with POST /v1/files given in the run's inputs,
// the generator's model calls answered by the scripted model server. The model echoes the last
// user message, so the block a generator writes is the exact prompt it sent; the expected prompts
// are what PuppyEngine's GeneratorConfigParser and llm_generation build (python3 on its sources).

type Json = Record<string, unknown>;
let stack: TestStack;
const ADMIN = 'puppy-models-admin-token';

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/planner/test/fixtures/graph.script.json',
    env: { SWITCHYARD_ADMIN_TOKEN: ADMIN },
  });
  await putScript(stack, {
    strict: true,
    models: ['scripted'],
    rules: [{ name: 'echo', reply: { content: '{{last_user}}' } }],
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const saveAgent = (name: string, dsl: unknown) =>
  stack.api('POST', '/v1/agents', { name, kind: 'graph', dsl });

async function createAgent(name: string, dsl: unknown): Promise<string> {
  const res = await saveAgent(name, dsl);
  expect(res.body.error ?? null).toBeNull();
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function upload(name: string, content: string, type: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from(content, 'utf8')], { type }), name);
  const res = await fetch(`${stack.gatewayUrl}/v1/files`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${stack.key}` },
    body: form,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function modelRequests() {
  const all = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as {
    path: string;
    rule: string | null;
    messages_count: number;
    system: string;
  }[];
  return all.filter((r) => r.path !== '/v1/embeddings');
}

/** A run; its prompt fills the workflow's one text block no edge writes, when it has exactly one. */
async function run(agentId: string, inputs?: Json, prompt = 'go') {
  await stack.clearModelRequests();
  const res = await stack.api('POST', '/v1/runs', {
    agent_id: agentId,
    input: { prompt, ...(inputs ? { inputs } : {}) },
  });
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  const sse = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
    headers: { Authorization: `Bearer ${stack.key}` },
    timeoutMs: 60_000,
  });
  const events = sse.frames.map((f) => JSON.parse(f.data) as RunEvent);
  const runRow = (await stack.api('GET', `/v1/runs/${runId}`)).body;
  return { run: runRow, events, requests: await modelRequests() };
}

const SYSTEM = PUPPY_SYSTEM_PROMPTS['default'];
const QUESTION = 'What is Switchyard?';
const DOC = 'Switchyard runs AI agents.';

/** One question, one document, the default templates: in engine JSON and as a Generate node. */
const generatorEngine = {
  blocks: {
    q: { label: 'Question', type: 'text', data: { content: QUESTION } },
    d: { label: 'Doc', type: 'text', data: { content: DOC } },
    a: { label: 'Answer', type: 'text', data: { content: '' } },
  },
  edges: {
    gen: {
      type: 'generator',
      data: {
        queries: ['q'],
        docs: ['d'],
        sys_prompt_template: 'default',
        user_prompt_template: 'default',
        hoster: 'openrouter',
        model: 'openai/gpt-5',
        max_tokens: 2048,
        structured_output: false,
        inputs: { q: 'Question', d: 'Doc' },
        outputs: { a: 'Answer' },
      },
    },
  },
};
const generatorEditor = {
  blocks: [
    { id: 'q', type: 'text', data: { label: 'Question', content: QUESTION } },
    { id: 'd', type: 'text', data: { label: 'Doc', content: DOC } },
    { id: 'a', type: 'text', data: { label: 'Answer', content: '' } },
    {
      id: 'gen',
      type: 'generate',
      data: {
        query_ids: { id: 'q', label: 'Question' },
        document_ids: { id: 'd', label: 'Doc' },
        promptTemplate: 'default',
      },
    },
  ],
  edges: [
    { source: 'q', target: 'gen' },
    { source: 'd', target: 'gen' },
    { source: 'gen', target: 'a' },
  ],
};

/** A file block loaded (its files from the run's inputs) and a structured block loaded. */
const loadEngine = {
  blocks: {
    f: { label: 'Files', type: 'file', data: { content: [] } },
    o: { label: 'Loaded', type: 'structured', data: { content: '' } },
  },
  edges: {
    ld: {
      type: 'load',
      data: {
        block_type: 'file',
        content: 'f',
        extra_configs: { file_configs: [] },
        inputs: { f: 'Files' },
        outputs: { o: 'Loaded' },
      },
    },
  },
};
const loadEditor = {
  blocks: [
    { id: 'f', type: 'file', data: { label: 'Files', content: [] } },
    { id: 'o', type: 'structured', data: { label: 'Loaded', content: '' } },
    { id: 'ld', type: 'load', data: {} },
  ],
  edges: [
    { source: 'f', target: 'ld' },
    { source: 'ld', target: 'o' },
  ],
};

describe('graph agents: PuppyEngine generator and load edges', () => {
  let files: { txt: string; csv: string; json: string };

  beforeAll(async () => {
    files = {
      txt: await upload('notes.txt', 'line1\r\nline2\n', 'text/plain'),
      csv: await upload('people.csv', 'name,n\nann,1\nbob,2\n', 'text/csv'),
      json: await upload('data.json', '{"a": 1, "b": ["x"]}', 'application/json'),
    };
  });

  it('generator: the prompt is PuppyEngine’s default templates filled with the query and the doc', async () => {
    const agent = await createAgent('gen', generatorEngine);
    const r = await run(agent);
    expect(r.run.error).toBeNull();
    expect(r.run.status).toBe('succeeded');
    const prompt = `Provided Context:\n${DOC}\n\nUser's Question:\n${QUESTION}\n`;
    expect(r.run.output.blocks).toEqual({ a: prompt });
    expect(r.requests.map((q) => [q.rule, q.messages_count, q.system])).toEqual([['echo', 2, SYSTEM]]);
    expect(r.run.usage.total_tokens).toBeGreaterThan(0);
  });

  it('generator twin: a Generate node answers as the same workflow in engine JSON', async () => {
    const engine = await run(await createAgent('gen-engine', generatorEngine));
    const engineRequests = engine.requests.map((q) => [q.messages_count, q.system]);
    const editor = await run(await createAgent('gen-editor', generatorEditor));
    expect(editor.run.status).toBe('succeeded');
    expect(editor.run.output).toEqual(engine.run.output);
    expect(editor.requests.map((q) => [q.messages_count, q.system])).toEqual(engineRequests);
  });

  it('generator: a looped query is one call per item, numbered docs serialized as upstream', async () => {
    const agent = await createAgent('gen-loop', {
      blocks: {
        q: { label: 'q', type: 'structured', data: { content: ['a?', 'b?'] }, looped: true },
        d1: { label: 'd1', type: 'text', data: { content: '' } },
        d2: { label: 'd2', type: 'structured', data: { content: { k: 'v' } } },
        a: { label: 'a', type: 'structured', data: {} },
      },
      edges: {
        gen: {
          type: 'generator',
          data: {
            queries: ['q'],
            docs: ['d1', 'd2'],
            inputs: { q: 'q', d1: 'd1', d2: 'd2' },
            outputs: { a: 'a' },
          },
        },
      },
    });
    const r = await run(agent, undefined, 'Doc one.');
    expect(r.run.status).toBe('succeeded');
    const prompt = (q: string) =>
      `Provided Context:\nDocument 1: Doc one.\n\nDocument 2: {\n  "k": "v"\n}\n\nUser's Question:\n${q}\n`;
    expect(r.run.output.blocks).toEqual({ a: [prompt('a?'), prompt('b?')] });
    expect(r.requests.map((q) => q.rule)).toEqual(['echo', 'echo']);
  });

  it('load: a file block’s tenant files are parsed by type, and a generator reads them', async () => {
    const agent = await createAgent('load-gen', {
      blocks: {
        ...loadEngine.blocks,
        q: { label: 'q', type: 'text', data: { content: 'Summarize the files.' } },
        s: { label: 's', type: 'structured', data: { content: { x: 1 } } },
        so: { label: 'so', type: 'structured', data: {} },
        a: { label: 'a', type: 'text', data: {} },
      },
      edges: {
        ...loadEngine.edges,
        ls: { type: 'load', data: { block_type: 'structured', inputs: { s: 's' }, outputs: { so: 'so' } } },
        gen: {
          type: 'generator',
          data: { queries: ['q'], docs: ['o'], inputs: { q: 'q', o: 'Loaded' }, outputs: { a: 'a' } },
        },
      },
    });
    const r = await run(
      agent,
      { f: [{ id: files.txt }, { id: files.csv }, { file_id: files.json, name: 'data.json' }] },
      'Summarize the files.',
    );
    expect(r.run.error).toBeNull();
    expect(r.run.status).toBe('succeeded');
    // What PuppyEngine's GeneratorConfigParser makes of the loaded list (python3 on its sources).
    const prompt =
      'Provided Context:\n[\n  "line1\\nline2\\n",\n  [\n    {\n      "name": "ann",\n      "n": 1\n    },\n    {\n      "name": "bob",\n      "n": 2\n    }\n  ],\n  {\n    "a": 1,\n    "b": [\n      "x"\n    ]\n  }\n]\n\nUser\'s Question:\nSummarize the files.\n';
    expect(r.run.output.blocks).toEqual({ so: { x: 1 }, a: prompt });
  });

  it('load twin: a Load node loads as the same workflow in engine JSON', async () => {
    const inputs = { f: [{ id: files.txt }, { id: files.json }] };
    const engine = await run(await createAgent('load-engine', loadEngine), inputs);
    expect(engine.run.status).toBe('succeeded');
    expect(engine.run.output.blocks).toEqual({ o: ['line1\nline2\n', { a: 1, b: ['x'] }] });
    const editor = await run(await createAgent('load-editor', loadEditor), inputs);
    expect(editor.run.output).toEqual(engine.run.output);
  });

  it('load: a file the tenant does not have fails the run, naming the edge and the file', async () => {
    const r = await run(await createAgent('load-missing', loadEngine), {
      f: [{ id: '00000000-0000-4000-8000-000000000000' }],
    });
    expect(r.run.status).toBe('failed');
    expect(r.run.error.message).toContain('edge ld');
    expect(r.run.error.message).toContain('file "00000000-0000-4000-8000-000000000000" not found');
  });

  it('refuses at save what is not run here: a weblink load, PuppyStorage file entries', async () => {
    const web = await saveAgent('web', {
      ...loadEngine,
      edges: { ld: { type: 'load', data: { ...loadEngine.edges.ld.data, block_type: 'weblink' } } },
    });
    expect(web.status).toBe(400);
    expect(web.body.error.details).toContainEqual(
      expect.objectContaining({ field: 'dsl.edges.ld.data.block_type', edge: 'ld' }),
    );
    const storage = await saveAgent('storage', {
      ...loadEngine,
      blocks: {
        ...loadEngine.blocks,
        f: {
          label: 'Files',
          type: 'file',
          data: { content: [{ task_id: 'k', download_url: 'https://x/a.pdf' }] },
        },
      },
    });
    expect(storage.status).toBe(400);
    expect(storage.body.error.details).toContainEqual(
      expect.objectContaining({ field: 'dsl.blocks.f.data.content.0', block: 'f' }),
    );
  });
});
