import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type RunEvent, componentIdOfNode } from '@switchyard/contracts';
import { TestStack, readSse } from '@switchyard/testing';
import { putScript } from './graph-fixtures';

// PuppyEngine workflows as graph agents, end to end: engine JSON and PuppyFlow editor workflows
// saved through the gateway, each edge a `graph.<edge>` node served by the planner, the
// orchestrator routing on `next` only, the LLM being the scripted model server. Each scenario is
// checked against PuppyEngine's own run of it (fixtures/puppy/expected): the blocks the run
// wrote, the answer, the edges' path and the model calls.

const FIXTURES = join(__dirname, 'fixtures/puppy');

interface Golden {
  answer: Record<string, unknown>;
  path: string[];
  blocks_final: Record<string, { content: unknown; state: string }>;
  llm: { reply: unknown; messages: { role: string; content: string }[] }[];
  error: { message: string } | null;
}
type Json = Record<string, unknown>;
const read = (file: string): unknown => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as unknown;
const golden = (name: string): Golden => read(`expected/${name}.json`) as Golden;
const workflow = (name: string): Json => read(`${name}.json`) as Json;

let stack: TestStack;

const ADMIN = 'puppy-admin-token';
const REGISTRY_TTL_MS = 200;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/planner/test/fixtures/graph.script.json',
    env: { SWITCHYARD_ADMIN_TOKEN: ADMIN, SWITCHYARD_MODEL_REGISTRY_TTL_MS: String(REGISTRY_TTL_MS) },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const saveAgent = (name: string, dsl: unknown) =>
  stack.api('POST', '/v1/agents', { name, kind: 'graph', dsl });

async function createAgent(name: string, dsl: unknown): Promise<string> {
  const res = await saveAgent(name, dsl);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** The scripted model answers each golden call once, only if its messages are PuppyEngine's. */
async function scriptReplies(
  calls: Golden['llm'],
  order: number[] = calls.map((_, i) => i),
  embeddings?: { vectors: Record<string, number[]> },
): Promise<void> {
  const rules = order.map((i) => {
    const messages = calls[i].messages;
    const users = messages.filter((m) => m.role === 'user');
    return {
      name: `golden-${i}`,
      times: 1,
      when: {
        system_includes: messages.find((m) => m.role === 'system')?.content ?? '',
        user_includes: users[users.length - 1].content,
        any_includes: users[0].content,
        count_role: { role: 'user', min: users.length, max: users.length },
      },
      reply: {
        content: typeof calls[i].reply === 'string' ? calls[i].reply : JSON.stringify(calls[i].reply),
      },
    };
  });
  await putScript(stack, {
    strict: true,
    models: ['scripted'],
    ...(embeddings ? { embeddings } : {}),
    rules,
  });
}

async function allRequests() {
  return (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as {
    path: string;
    rule: string | null;
    messages_count: number;
    system: string;
  }[];
}

/** The chat requests the model server answered (embeddings left out). */
async function modelRequests() {
  return (await allRequests()).filter((r) => r.path !== '/v1/embeddings');
}

async function run(agentId: string, prompt: string, inputs?: Json) {
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
  const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as {
    node: string;
    result: { status?: string } | null;
  }[];
  // What the run wrote into each block: the entry's record and every edge's, from the delta log.
  const deltas = await stack.sql<{ delta: { patch?: { path: string; value: Json }[] } }>(
    `SELECT delta FROM state_deltas WHERE run_id = $1 ORDER BY version`,
    [runId],
  );
  const blocks: Json = {};
  const graphOps = deltas.flatMap((d) => d.delta.patch ?? []).filter((op) => op.path.startsWith('/graph'));
  for (const op of graphOps) {
    const records = op.path === '/graph' ? Object.values(op.value['outputs'] as Json) : [op.value];
    for (const record of records as { blocks_json: string }[]) {
      Object.assign(blocks, JSON.parse(record.blocks_json) as Json);
    }
  }
  return {
    run: runRow,
    blocks,
    // The edges that computed, in the order their actions were applied.
    path: actions
      .filter((a) => a.result?.status === 'ran')
      .map((a) => componentIdOfNode(a.node))
      .filter((id): id is string => id !== undefined),
    nodes: actions.map((a) => a.node),
    tokens: events
      .filter((e) => e.event_type === 'token')
      .map((e) => (e.payload as { text: string }).text)
      .join(''),
  };
}

/** The run wrote exactly the blocks PuppyEngine processed, with the same contents. */
function expectBlocksOf(blocks: Json, g: Golden): void {
  const processed = Object.entries(g.blocks_final).filter(([, b]) => b.state === 'processed');
  expect(blocks).toEqual(Object.fromEntries(processed.map(([id, b]) => [id, b.content])));
}

const withVersion = (w: Json): Json => ({ ...w, version: '0.2' });

describe('graph agents: PuppyEngine workflows on the orchestrator', () => {
  it('flow_test.as_written: the engine’s version check refuses "0.1" on save, naming the field', async () => {
    const g = golden('flow_test.as_written');
    expect(g.error?.message).toContain("Input should be '0.2'");
    const res = await saveAgent('flow', workflow('flow_test'));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual(expect.objectContaining({ field: 'dsl.version' }));
  });

  it('flow_test.default: edge 2 waits for block 2, which edge 1 writes; placeholders splice block values', async () => {
    const g = golden('flow_test.default');
    const agent = await createAgent('flow', withVersion(workflow('flow_test')));
    await scriptReplies(g.llm);
    const r = await run(agent, 'go');
    expect(r.run.error).toBeNull();
    expect(r.run.status).toBe('succeeded');
    expect(r.run.output.blocks).toEqual(g.answer);
    expect(r.run.output.answer).toBe('2');
    expect(r.path).toEqual(g.path);
    expect(r.nodes).toEqual([
      'start',
      'graph.begin',
      'graph.llm-_1723230193364',
      'graph.llm-_1727364074151',
      'graph.end',
    ]);
    expectBlocksOf(r.blocks, g);
    const requests = await modelRequests();
    expect(requests.map((q) => q.rule)).toEqual(['golden-0', 'golden-1']);
    expect(requests.map((q) => q.messages_count)).toEqual(g.llm.map((c) => c.messages.length));
    expect(r.run.usage.total_tokens).toBeGreaterThan(0);
  });

  it('loop_llm.default: two looped blocks run as a Cartesian product, 9 calls in product order, a list into block 4', async () => {
    const g = golden('loop_llm.default');
    const agent = await createAgent('loop', withVersion(workflow('loop_llm')));
    const names = g.blocks_final['2'].content as string[];
    const prompts = g.blocks_final['3'].content as string[];
    // product(b, c): the call for (name, prompt) is the golden call with that system and user text.
    const order = names.flatMap((n) =>
      prompts.map((p) =>
        g.llm.findIndex(
          (c) => c.messages[0].content === `You are an AI called ${n}` && c.messages[1].content === p,
        ),
      ),
    );
    expect(order).toHaveLength(9);
    expect(order).not.toContain(-1);
    await scriptReplies(g.llm, order);
    const r = await run(agent, 'go');
    expect(r.run.error).toBeNull();
    expect(r.run.output.blocks).toEqual(g.answer);
    expect(r.path).toEqual(g.path);
    expectBlocksOf(r.blocks, g);
    expect((await modelRequests()).map((q) => q.rule)).toEqual(order.map((i) => `golden-${i}`));
  });

  it('ifelse.as_written / ifelse.then: the version and the legacy `then` (which the engine ignores) are refused on save', async () => {
    expect(golden('ifelse.then').error?.message).toContain('Workflow execution stuck');
    const asWritten = await saveAgent('ifelse', workflow('ifelse'));
    expect(asWritten.status).toBe(400);
    expect(asWritten.body.error.details).toContainEqual(expect.objectContaining({ field: 'dsl.version' }));
    const then = await saveAgent('ifelse', withVersion(workflow('ifelse')));
    expect(then.status).toBe(400);
    expect(then.body.error.details).toEqual([
      expect.objectContaining({
        edge: 'ifelse-426782387',
        field: 'dsl.edges.ifelse-426782387.data.cases.case1.then',
      }),
      expect.objectContaining({
        edge: 'ifelse-426782387',
        field: 'dsl.edges.ifelse-426782387.data.cases.case2.then',
      }),
    ]);
  });

  describe('ifelse with `thens`', () => {
    let agent: string;

    beforeAll(async () => {
      const w = withVersion(workflow('ifelse'));
      const edge = (w['edges'] as Record<string, { data: { cases: Record<string, Json> } }>)[
        'ifelse-426782387'
      ];
      for (const c of Object.values(edge.data.cases)) {
        c['thens'] = c['then'];
        delete c['then'];
      }
      agent = await createAgent('ifelse', w);
      await scriptReplies([]);
    });

    it('ifelse.thens: every satisfied case applies its thens; both modify edges then run in one batch', async () => {
      const g = golden('ifelse.thens');
      const r = await run(agent, 'go');
      expect(r.run.error).toBeNull();
      expect(r.run.output.blocks).toEqual(g.answer);
      expect(r.run.output.answer).toBe('hello \n\ngoodbye world');
      // The two modify edges form one batch, whose order upstream is a set's: compared as a set.
      expect(r.path[0]).toBe(g.path[0]);
      expect([...r.path.slice(1)].sort()).toEqual([...g.path.slice(1)].sort());
      expectBlocksOf(r.blocks, g);
      expect(await modelRequests()).toEqual([]);
    });

    it('skips the edges of an untaken branch instead of getting stuck (a documented deviation)', async () => {
      // case1 needs b = "world"; case2 holds because "word" contains "d".
      const r = await run(agent, 'go', { b: 'word' });
      expect(r.run.error).toBeNull();
      expect(r.run.status).toBe('succeeded');
      expect(r.run.output.blocks).toEqual({ '6': 'goodbye word' });
      expect(r.run.output.skipped_blocks).toEqual(['5']);
      expect(r.path).toEqual(['ifelse-426782387', 'edge-65762984']);
      expect(r.blocks).toEqual({ '1': '', '2': 'word', '4': 'word', '6': 'goodbye word' });
    });
  });

  it('agentic-rag.run_all_as_packaged: the editor template converts, and its empty index_name is refused on save', async () => {
    const g = golden('agentic-rag.run_all_as_packaged');
    expect(g.error?.message).toContain('index_item must include either collection_configs');
    const res = await saveAgent('rag', workflow('agentic-rag.package'));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      expect.objectContaining({
        edge: '3YAeP8',
        field: 'dsl.edges.3YAeP8.data.data_source.0.index_item',
        message: expect.stringContaining('index_item must include either collection_configs'),
      }),
    ]);
  });

  it('agentic-rag.run_all_resources_inline_named_index: a KB block with nothing to index is refused on save, naming block and index', async () => {
    const g = golden('agentic-rag.run_all_resources_inline_named_index');
    const pkg = workflow('agentic-rag.package') as { workflow: { blocks: { id: string; data: Json }[] } };
    const retrieving = pkg.workflow.blocks.find((b) => b.id === '3YAeP8')!;
    (retrieving.data['dataSource'] as { index_item: Json }[])[0].index_item['index_name'] = 'faq';
    // PuppyEngine ran it and searched the empty collection name "" (m3bHrN: []); its KB block has
    // no entries and no index set "faq", so no search of it could find anything: refused on save.
    expect(g.blocks_final['m3bHrN'].content).toEqual([]);
    const res = await saveAgent('rag', pkg);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      expect.objectContaining({
        field: 'dsl.edges.3YAeP8.data.data_source.0',
        edge: '3YAeP8',
        block: 'WzK6iT',
        code: 'unresolvable_data_source',
        message: expect.stringMatching(/block "WzK6iT", index "faq": .*no index set "faq"/),
      }),
    ]);
  });

  it('a join runs once: named by two parallel edges it is one task; named early it waits for its last input', async () => {
    const text = (label: string, content: string) => ({ label, type: 'text', data: { content } });
    const edit = (content: string, inputs: Record<string, string>, to: string) => ({
      type: 'modify',
      data: { modify_type: 'edit_text', content, inputs, outputs: { [to]: to } },
    });
    const agent = await createAgent('joins', {
      blocks: {
        a: text('a', 'x'),
        b: text('b', ''),
        c: text('c', ''),
        d: text('d', ''),
        b2: text('b2', ''),
        e: text('e', ''),
      },
      edges: {
        e1: edit('{{a}}1', { a: 'a' }, 'b'),
        e2: edit('{{a}}2', { a: 'a' }, 'c'),
        // Diamond: ready through e1 and e2 of the same batch.
        join: edit('{{b}}+{{c}}', { b: 'b', c: 'c' }, 'd'),
        // Uneven: named by e2 in the first batch (b2 still pending), then by e4 in the second.
        e4: edit('{{b}}!', { b: 'b' }, 'b2'),
        late: edit('{{b2}}/{{c}}', { b2: 'b2', c: 'c' }, 'e'),
      },
    });
    await scriptReplies([]);
    // The prompt fills `a`, the one text block no edge writes.
    const r = await run(agent, 'x');
    expect(r.run.error).toBeNull();
    expect(r.run.output.blocks).toEqual({ d: 'x1+x2', e: 'x1!/x2' });
    const count = (node: string) => r.nodes.filter((n) => n === node).length;
    expect(count('graph.join')).toBe(1);
    expect(count('graph.late')).toBe(2);
    expect(r.path.filter((id) => id === 'late')).toHaveLength(1);
    expect(r.path).toEqual(['e1', 'e2', 'join', 'e4', 'late']);
  });

  it('an edge that fails in a parallel batch fails the run once the batch is in, naming the edge', async () => {
    const text = (label: string, content: string) => ({ label, type: 'text', data: { content } });
    const modify = (type: string, from: [string, string], to: [string, string], extra: Json = {}) => ({
      type: 'modify',
      data: {
        modify_type: type,
        content: `{{${from[1]}}}`,
        extra_configs: extra,
        inputs: { [from[0]]: from[1] },
        outputs: { [to[0]]: to[1] },
      },
    });
    const agent = await createAgent('fails', {
      blocks: { a: text('a', 'x'), b: text('b', ''), c: text('c', 'y'), d: text('d', ''), e: text('e', '') },
      edges: {
        // A get on a text cannot index into it.
        bad: modify('edit_structured', ['a', 'a'], ['b', 'b'], {
          operations: [{ type: 'get', params: { path: ['k'] } }],
        }),
        good: modify('copy', ['c', 'c'], ['d', 'd']),
        after: modify('copy', ['b', 'b'], ['e', 'e']),
      },
    });
    await scriptReplies([]);
    const r = await run(agent, 'go');
    expect(r.run.status).toBe('failed');
    expect(r.run.error).toEqual({
      code: 'component_failed',
      message: expect.stringContaining(
        "edge bad: Error executing structured operation `get`: Cannot index into str with key 'k'",
      ),
    });
    // The batch ran whole, the failed edge's reader never ran, and graph.end failed the run.
    expect(r.path).toEqual(['good']);
    expect(r.nodes.slice(-1)).toEqual(['graph.end']);
    expect(r.blocks).toEqual({ a: 'x', c: 'y', d: 'y' });
  });

  it('refuses an edge naming a missing block, and stores nothing', async () => {
    const before = (await stack.api('GET', '/v1/agents')).body.agents.length as number;
    const w = withVersion(workflow('flow_test')) as { edges: Record<string, { data: Json }> };
    w.edges['llm-1727364074151'].data['inputs'] = { '2': 'b', '9': 'c' };
    const res = await saveAgent('broken', w);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual(
      expect.objectContaining({
        edge: 'llm-1727364074151',
        field: 'dsl.edges.llm-1727364074151.data.inputs.9',
      }),
    );
    expect((await stack.api('GET', '/v1/agents')).body.agents).toHaveLength(before);
  });
});

describe('PuppyEngine vector collections: instantiated when saved, resolved when searched', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the gateway's JSON
  type Any = any;
  const admin = (method: string, path: string, body?: unknown) =>
    stack.api(method, path, body, { Authorization: `Bearer ${ADMIN}` });
  const collections = async (): Promise<{ id: string; name: string; documents: number }[]> =>
    (await stack.api('GET', '/v1/collections')).body.collections;
  const kb = read('agentic-rag-resources/faq-vector-kb.json') as { content: Json[] };

  /** The template as PuppyFlow's loader mounts it inline: the KB's batch into the block's content. */
  function template(content: Json[] = kb.content) {
    const pkg = workflow('agentic-rag.package') as { workflow: { blocks: { id: string; data: Json }[] } };
    pkg.workflow.blocks.find((b) => b.id === 'WzK6iT')!.data['content'] = content;
    return pkg;
  }
  const blockOf = (dsl: Any, id: string) => (dsl.workflow.blocks as Any[]).find((b) => b.id === id);

  beforeAll(async () => {
    // An embedding model in the registry, served by the scripted model server (its vectors scripted
    // per test, as its chat replies are).
    const vendor = await admin('POST', '/v1/admin/vendors', {
      name: 'embeddings',
      kind: 'openai',
      base_url: `${stack.llmUrl}/v1`,
    });
    expect(vendor.status).toBe(201);
    expect(
      (await admin('POST', `/v1/admin/vendors/${vendor.body.id}/keys`, { secret: 'sk-embed' })).status,
    ).toBe(201);
    const model = await admin('POST', '/v1/admin/models', {
      vendor_id: vendor.body.id,
      name: 'text-embedding-ada-002',
      category: 'embedding',
    });
    expect(model.status).toBe(201);
    await new Promise((r) => setTimeout(r, REGISTRY_TTL_MS * 3)); // every registry cache expired
  });

  it('retrieval_vector_test.default: the block becomes a collection embedded by its model; the search ranks it', async () => {
    const g = golden('retrieval_vector_test.default');
    const w = workflow('retrieval_vector_test') as Any;
    const docs = w.blocks.rL_T0O.data.content as string[];
    const query = g.blocks_final['Lm-PbX'].content as string;
    // PuppyEngine's run searched a stand-in store scoring |chars(query) ∩ chars(text)| / |chars(text)|;
    // the registry model here answers vectors whose cosine with the query's is exactly that score.
    const score = (text: string) => {
      const q = new Set(query);
      const chars = new Set(text);
      return [...chars].filter((c) => q.has(c)).length / chars.size;
    };
    const vectors = Object.fromEntries([
      [query, [1, 0]],
      ...docs.map((d) => [d, [score(d), Math.sqrt(1 - score(d) ** 2)]]),
    ]);
    await scriptReplies([], [], { vectors });
    const agent = await createAgent('retrieval', workflow('retrieval_vector_test'));
    // Saving embedded the block's 20 strings into a collection of the tenant, and the block holds
    // its configs; the edge still names the index it always named.
    const stored = (await stack.api('GET', `/v1/agents/${agent}`)).body.draft.dsl as Any;
    const item = stored.blocks.rL_T0O.data.indexingList[0];
    expect(item).toMatchObject({
      index_name: 'public5c46f906fa319951',
      status: 'done',
      collection_configs: {
        model: 'text-embedding-ada-002',
        set_name: 'entries',
        collection_name: expect.stringMatching(/^kb_/),
      },
    });
    const collection = (await collections()).find((c) => c.name.startsWith('puppy rL_T0O '));
    expect(collection?.documents).toBe(20);

    const r = await run(agent, query);
    expect(r.run.error).toBeNull();
    expect(r.run.output.blocks).toEqual(g.answer);
    expect(r.path).toEqual(g.path);
    expectBlocksOf(r.blocks, g);
    expect(await modelRequests()).toEqual([]);
    // Through the registry model: saving embedded the 20 entries, the run its query.
    const embedded = (await allRequests()).filter((q) => q.path === '/v1/embeddings');
    expect(embedded.map((q) => q.messages_count)).toEqual([20, 1]);
  });

  it("seed 000's Agentic RAG template: instantiated into a collection, searched at run time, re-indexed when edited", async () => {
    const g = golden('agentic-rag.run_all_resources_inline_named_index');
    const before = (await collections()).length;
    // As packaged, the search edge names the KB without an index name: instantiation names the
    // block's index set and gives the edge that name — only the name (PuppyFlow's sync).
    const saved = await saveAgent('agentic-rag', template());
    expect(saved.status).toBe(201);
    const agent = saved.body.id as string;
    const dsl = saved.body.dsl as Any;
    expect(blockOf(dsl, 'WzK6iT').data.indexingList[0]).toMatchObject({
      index_name: 'WzK6iT',
      status: 'done',
      collection_configs: {
        collection_name: expect.stringMatching(/^kb_/),
        set_name: 'entries',
        model: 'hash-embedding-v1',
        user_id: expect.any(String),
      },
    });
    expect(blockOf(dsl, '3YAeP8').data.dataSource).toEqual([
      { id: 'WzK6iT', label: 'FAQ Knowledge Base', index_item: { index_name: 'WzK6iT' } },
    ]);
    const made = (await collections()).slice(before);
    expect(made).toEqual([
      expect.objectContaining({ name: expect.stringMatching(/^puppy WzK6iT /), documents: 7 }),
    ]);

    const ask = async (id: string) => {
      await scriptReplies(g.llm);
      return run(id, 'price?', {
        '-DMqB-': g.blocks_final['-DMqB-'].content,
        cQIBpi: read('agentic-rag-resources/faq-schema.json'),
      });
    };
    const r = await ask(agent);
    expect(r.run.error).toBeNull();
    expect(r.run.output.blocks).toEqual(g.answer);
    expect(r.path).toEqual(g.path);
    // The retrieved results are the collection's entries (the whole FAQ item: the template's value
    // path is empty), best first: the one question that shares a word with the query.
    const retrieved = r.blocks['m3bHrN'] as Json[];
    expect(retrieved).toHaveLength(3);
    expect(retrieved[0]).toEqual(kb.content.find((c) => c['question'] === 'What is your price?'));
    for (const hit of retrieved) {
      expect(kb.content).toContainEqual(hit);
    }

    // Saved again unchanged: the same collection, nothing embedded again.
    await fetch(`${stack.llmUrl}/_requests`, { method: 'DELETE' });
    const again = await stack.api('PATCH', `/v1/agents/${agent}`, { dsl: template() });
    expect(again.status).toBe(200);
    expect((await collections()).length).toBe(before + 1);
    expect(await allRequests()).toEqual([]);

    // Edited entries are indexed into a new collection, which the new version searches.
    const added = { question: 'What is the price of the enterprise plan?', answer: 'Ask our sales team.' };
    const edited = await stack.api('PATCH', `/v1/agents/${agent}`, { dsl: template([...kb.content, added]) });
    expect(edited.status).toBe(200);
    expect((await stack.api('POST', `/v1/agents/${agent}/versions`)).status).toBe(201);
    const now = (await collections()).slice(before);
    expect(now.map((c) => c.documents)).toEqual([7, 8]);
    const r2 = await ask(agent);
    expect(r2.run.error).toBeNull();
    expect(r2.blocks['m3bHrN']).toContainEqual(added);

    // A collection deleted under the agent: the search fails naming the block and its index.
    expect((await stack.api('DELETE', `/v1/collections/${now[1].id}`)).status).toBe(200);
    const r3 = await ask(agent);
    expect(r3.run.status).toBe('failed');
    expect(r3.run.error.message).toMatch(
      /edge 3YAeP8: block "WzK6iT", index "WzK6iT": no collection "kb_\w+" exists/,
    );
  });

  it('refuses on save a block with more entries than a save indexes, naming the block', async () => {
    const many = Array.from({ length: 5001 }, (_, i) => ({ question: `q${i}`, answer: 'a' }));
    const res = await saveAgent('too-big', template(many));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      expect.objectContaining({
        block: 'WzK6iT',
        field: 'dsl.blocks.WzK6iT.indexingList.0',
        message: expect.stringContaining('at most 5000'),
      }),
    ]);
  });

  it("refuses on save a data source naming a collection this tenant does not have (another tenant's)", async () => {
    const other = await stack.newTenant('puppy-other', ADMIN);
    const theirs = await stack.api(
      'POST',
      '/v1/agents',
      { name: 'theirs', kind: 'graph', dsl: template() },
      { Authorization: `Bearer ${other.key}` },
    );
    expect(theirs.status).toBe(201);
    const configs = blockOf(theirs.body.dsl, 'WzK6iT').data.indexingList[0].collection_configs;
    // Our workflow: the KB block without entries, its search embedding the other tenant's configs.
    const pkg = workflow('agentic-rag.package') as Any;
    blockOf(pkg, '3YAeP8').data.dataSource[0].index_item = {
      collection_configs: configs,
    };
    const res = await saveAgent('borrowed', pkg);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      expect.objectContaining({
        edge: '3YAeP8',
        block: 'WzK6iT',
        code: 'unresolvable_data_source',
        message: expect.stringContaining(`no collection "${configs.collection_name}" of this tenant`),
      }),
    ]);
  });

  it('refuses on save a block whose entries its embedding model cannot index, naming the block', async () => {
    const pkg = template();
    const item = (blockOf(pkg, 'WzK6iT').data.indexingList as Any[])[0];
    item.collection_configs.model = 'no-such-embedding-model';
    const res = await saveAgent('unindexable', pkg);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      expect.objectContaining({
        block: 'WzK6iT',
        field: 'dsl.blocks.WzK6iT.indexingList.0',
        code: 'indexing_failed',
        message: expect.stringContaining('unknown embedding model "no-such-embedding-model"'),
      }),
    ]);
    expect((await collections()).some((c) => c.name.startsWith('puppy WzK6iT') && c.documents === 0)).toBe(
      false,
    );
  });
});

describe('PuppyFlow editor nodes answer as their engine form (twins)', () => {
  type Node = { id: string; type: string; data: Json };
  /** An editor workflow: data blocks, one computation node and its connections. */
  const editorOf = (blocks: Node[], node: Node, from: string[], to: string[]) => ({
    workflow: {
      blocks: [...blocks, node],
      edges: [
        ...from.map((source) => ({ source, target: node.id })),
        ...to.map((target) => ({ source: node.id, target })),
      ],
    },
  });
  const block = (id: string, type: 'text' | 'structured', label: string, content: unknown = ''): Node => ({
    id,
    type,
    data: { label, content },
  });

  async function twins(engine: Json, editor: Json, prompt: string, script?: () => Promise<void>) {
    const outputs: unknown[] = [];
    const calls: unknown[] = [];
    for (const dsl of [engine, editor]) {
      await (script ? script() : scriptReplies([]));
      const r = await run(await createAgent('twin', dsl), prompt);
      expect(r.run.error).toBeNull();
      outputs.push(r.run.output.blocks);
      calls.push((await modelRequests()).map((q) => [q.rule, q.messages_count, q.system]));
    }
    expect(outputs[1]).toEqual(outputs[0]);
    expect(calls[1]).toEqual(calls[0]);
    return outputs[0];
  }

  it('llmnew: the messages, sent twice as PuppyFlow does', async () => {
    const messages = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Say {{Topic}}' },
    ];
    const engine = {
      blocks: {
        t: { label: 'Topic', type: 'text', data: { content: '' } },
        o: { label: 'Out', type: 'text', data: { content: '' } },
      },
      edges: {
        l: {
          type: 'llm',
          data: {
            messages,
            chat_histories: messages,
            model: 'openai/gpt-5',
            inputs: { t: 'Topic' },
            outputs: { o: 'Out' },
          },
        },
      },
    };
    const editor = editorOf(
      [block('t', 'text', 'Topic'), block('o', 'text', 'Out')],
      {
        id: 'l',
        type: 'llmnew',
        data: { content: JSON.stringify(messages), modelAndProvider: { id: 'openai/gpt-5' } },
      },
      ['t'],
      ['o'],
    );
    const script = () =>
      putScript(stack, {
        models: ['scripted'],
        rules: [{ name: 'say', when: { user_includes: 'Say hello' }, reply: { content: 'hello.' } }],
      });
    expect(await twins(engine, editor, 'hello', script)).toEqual({ o: 'hello.' });
  });

  it('copy and convert2text: the input block as it is, and as text', async () => {
    const data = { a: [1, 2] };
    for (const type of ['copy', 'convert2text'] as const) {
      const engine = {
        blocks: {
          s: { label: 'Src', type: 'structured', data: { content: data } },
          q: { label: 'Q', type: 'text', data: { content: '' } },
          o: { label: 'Out', type: 'text', data: { content: '' } },
        },
        edges: {
          m: {
            type: 'modify',
            data: {
              content: '{{Src}}',
              modify_type: type,
              extra_configs: {},
              inputs: { s: 'Src' },
              outputs: { o: 'Out' },
            },
          },
        },
      };
      const editor = editorOf(
        [
          block('s', 'structured', 'Src', JSON.stringify(data)),
          block('q', 'text', 'Q'),
          block('o', 'text', 'Out'),
        ],
        { id: 'm', type, data: {} },
        ['s'],
        ['o'],
      );
      const out = await twins(engine, editor, 'unused');
      expect(out).toEqual(type === 'copy' ? { o: data, q: 'unused' } : { o: '{"a": [1, 2]}', q: 'unused' });
    }
  });

  it('retrieving: a vector search of an instantiated block, its data source resolved alike', async () => {
    const faq = [
      { question: 'What is your price?', answer: '$25' },
      { question: 'Where are you?', answer: 'Singapore' },
    ];
    const item = {
      type: 'vector',
      index_name: 'faq',
      key_path: [{ id: 'k', type: 'key', value: 'question' }],
      value_path: [],
    };
    const engine = {
      blocks: {
        q: { label: 'Query', type: 'text', data: { content: '' } },
        kb: { label: 'KB', type: 'structured', data: { content: faq, indexingList: [item] } },
        o: { label: 'Hits', type: 'structured', data: { content: '' } },
      },
      edges: {
        r: {
          type: 'search',
          data: {
            search_type: 'vector',
            top_k: 1,
            inputs: { q: 'Query', kb: 'KB' },
            threshold: 0.7,
            extra_configs: { provider: 'openai', model: 'text-embedding-ada-002', db_type: 'pgvector' },
            query_id: { q: 'Query' },
            data_source: [{ id: 'kb', label: 'KB', index_item: { index_name: 'faq' } }],
            outputs: { o: 'Hits' },
          },
        },
      },
    };
    const editor = editorOf(
      [
        block('q', 'text', 'Query'),
        {
          ...block('kb', 'structured', 'KB', faq),
          data: { label: 'KB', content: faq, indexingList: [item] },
        },
        block('o', 'structured', 'Hits'),
      ],
      {
        id: 'r',
        type: 'retrieving',
        data: {
          top_k: 1,
          query_id: { id: 'q', label: 'Query' },
          dataSource: [{ id: 'kb', label: 'KB', index_item: { index_name: 'faq' } }],
          extra_configs: { threshold: 0.7 },
        },
      },
      ['q', 'kb'],
      ['o'],
    );
    expect(await twins(engine, editor, 'price?')).toEqual({ o: [faq[0]] });
  });
});
