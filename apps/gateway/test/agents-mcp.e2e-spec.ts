import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { TestStack, waitFor } from '@switchyard/testing';

// The tenant's agents as an MCP server (POST /mcp, Streamable HTTP), driven by the official MCP
// SDK's client: tools/list names the agents, tools/call runs one (the default agent and graph
// agents) with progress notifications, a question comes back as the result and its answer
// continues the run, a cancelled call cancels the run, and another tenant's key sees its own.

const ADMIN = 'admin-token-for-the-mcp-e2e';
let stack: TestStack;
let client: Client;

const connect = async (key: string, answer?: (req: ElicitRequest) => ElicitResult): Promise<Client> => {
  const c = new Client(
    { name: 'switchyard-e2e', version: '1.0.0' },
    answer ? { capabilities: { elicitation: {} } } : undefined,
  );
  if (answer) {
    c.setRequestHandler(ElicitRequestSchema, (req) => answer(req));
  }
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.gatewayUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return c;
};

const cpn = (
  name: string,
  params: Record<string, unknown>,
  downstream: string[],
  upstream: string[],
  parent?: string,
) => ({
  obj: { component_name: name, params },
  downstream,
  upstream,
  ...(parent ? { parent_id: parent } : {}),
});

async function createGraph(
  name: string,
  components: Record<string, unknown>,
  maxSteps = 50,
): Promise<string> {
  const res = await stack.api('POST', '/v1/agents', {
    name,
    kind: 'graph',
    dsl: { components },
    max_steps: maxSteps,
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'tools/scripted-llm/scripts/demo.json',
    env: { SWITCHYARD_ADMIN_TOKEN: ADMIN },
  });
  await createGraph('Echo bot', {
    begin: cpn(
      'Begin',
      {
        inputs: {
          tone: { name: 'Tone', type: 'options', options: ['calm', 'loud'], optional: true },
          times: { name: 'Times', type: 'integer', optional: true },
        },
      },
      ['Message:Echo'],
      [],
    ),
    'Message:Echo': cpn('Message', { content: ['echo: {sys.query}'] }, [], ['begin']),
  });
  await createGraph('city form', {
    begin: cpn('Begin', {}, ['UserFillUp:Ask'], []),
    'UserFillUp:Ask': cpn(
      'UserFillUp',
      { enable_tips: true, tips: 'Which city?', inputs: { city: { name: 'City', type: 'line' } } },
      ['Message:City'],
      ['begin'],
    ),
    'Message:City': cpn('Message', { content: ['city={UserFillUp:Ask@city}'] }, [], ['UserFillUp:Ask']),
  });
  await createGraph(
    'spinner',
    {
      begin: cpn('Begin', {}, ['Loop:Spin'], []),
      'Loop:Spin': cpn(
        'Loop',
        {
          loop_variables: [{ variable: 'n', input_mode: 'constant', type: 'number', value: 0 }],
          logical_operator: 'and',
          loop_termination_condition: [
            { variable: 'Loop:Spin@n', operator: '≥', input_mode: 'constant', value: 1e9 },
          ],
          maximum_loop_count: 100_000,
        },
        ['Message:Done'],
        ['begin'],
      ),
      'LoopItem:S': cpn('LoopItem', {}, ['VariableAssigner:Tick'], [], 'Loop:Spin'),
      'VariableAssigner:Tick': cpn(
        'VariableAssigner',
        { variables: [{ variable: 'Loop:Spin@n', operator: '+=', parameter: 1 }] },
        [],
        ['LoopItem:S'],
        'Loop:Spin',
      ),
      'Message:Done': cpn('Message', { content: ['done'] }, [], ['Loop:Spin']),
    },
    10_000,
  );
  client = await connect(stack.key);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('agents as an MCP server', () => {
  it("lists the default agent and the tenant's agents as tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['default', 'Echo_bot', 'city_form', 'spinner']);
    const echo = tools.find((t) => t.name === 'Echo_bot')!;
    expect(echo.title).toBe('Echo bot');
    expect(echo.description).toContain('graph agent "Echo bot"');
    expect(echo.inputSchema.properties).toHaveProperty('prompt');
    // A graph agent's Begin form is the schema of its inputs.
    expect(echo.inputSchema.properties?.['inputs']).toMatchObject({
      type: 'object',
      properties: {
        tone: { type: 'string', enum: ['calm', 'loud'], description: 'Tone' },
        times: { type: 'integer', description: 'Times' },
      },
      required: [],
    });
    const defaultTool = tools.find((t) => t.name === 'default')!;
    expect(defaultTool.inputSchema.properties?.['inputs']).not.toHaveProperty('properties');
  });

  it('runs the default agent with progress notifications; the run is an ordinary run', async () => {
    const progress: { progress: number; message?: string }[] = [];
    const r = await client.callTool({ name: 'default', arguments: { prompt: 'what is 2+3*4?' } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(r.isError).toBeFalsy();
    expect(r.content).toEqual([{ type: 'text', text: 'The answer is 14.' }]);
    const meta = r._meta as { run_id: string; thread_id: string; status: string };
    expect(meta.status).toBe('succeeded');
    expect(progress.length).toBeGreaterThanOrEqual(4);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(progress.some((p) => p.message?.startsWith('planner:'))).toBe(true);
    const run = await stack.api('GET', `/v1/runs/${meta.run_id}`);
    expect(run.body).toMatchObject({ status: 'succeeded', agent_id: 'default', metadata: { source: 'mcp' } });
  });

  it('runs a graph agent and continues its thread', async () => {
    const first = await client.callTool({ name: 'Echo_bot', arguments: { prompt: 'hello' } });
    // RAGFlow's Message eats the blank before a reference.
    expect(first.content).toEqual([{ type: 'text', text: 'echo:hello' }]);
    const threadId = (first._meta as { thread_id: string }).thread_id;
    const second = await client.callTool({
      name: 'Echo_bot',
      arguments: { prompt: 'again', thread_id: threadId },
    });
    expect(second.content).toEqual([{ type: 'text', text: 'echo:again' }]);
    expect((second._meta as { thread_id: string }).thread_id).toBe(threadId);
  });

  it('answers with the question of a run that asks the user; calling again with the answer continues it', async () => {
    const asked = await client.callTool({ name: 'city_form', arguments: { prompt: 'go' } });
    expect(asked.isError).toBeFalsy();
    const meta = asked._meta as { run_id: string; waiting: boolean; input_schema: { required?: string[] } };
    expect(meta.waiting).toBe(true);
    expect(asked.content).toEqual([{ type: 'text', text: 'Which city?' }]);
    expect(meta.input_schema.required).toEqual(['city']);
    const answered = await client.callTool({
      name: 'city_form',
      arguments: { run_id: meta.run_id, answer: { city: 'Lisbon' } },
    });
    expect(answered.content).toEqual([{ type: 'text', text: 'city=Lisbon' }]);
    expect((answered._meta as { run_id: string }).run_id).toBe(meta.run_id);
  });

  it('asks a client that answers elicitations, and the same call goes on to the answer', async () => {
    const asked: ElicitRequest[] = [];
    const eliciting = await connect(stack.key, (req) => {
      asked.push(req);
      return { action: 'accept', content: { city: 'Oslo' } };
    });
    try {
      const result = await eliciting.callTool({ name: 'city_form', arguments: { prompt: 'go' } });
      expect(result.content).toEqual([{ type: 'text', text: 'city=Oslo' }]);
      expect(asked).toHaveLength(1);
      const params = asked[0].params as {
        message: string;
        requestedSchema: { properties: Record<string, { type: string }> };
      };
      expect(params.message).toBe('Which city?');
      expect(params.requestedSchema.properties['city'].type).toBe('string');
    } finally {
      await eliciting.close();
    }
  });

  it('a declined question comes back as the result, the run still waiting for an answer', async () => {
    const declining = await connect(stack.key, () => ({ action: 'decline' }));
    try {
      const result = await declining.callTool({ name: 'city_form', arguments: { prompt: 'go' } });
      expect(result.content).toEqual([{ type: 'text', text: 'Which city?' }]);
      const meta = result._meta as { run_id: string; waiting: boolean };
      expect(meta.waiting).toBe(true);
      expect((await stack.api('GET', `/v1/runs/${meta.run_id}`)).body.status).toBe('waiting');
    } finally {
      await declining.close();
    }
  });

  it('a call the client cancels cancels its run', async () => {
    const abort = new AbortController();
    let steps = 0;
    const call = client
      .callTool({ name: 'spinner', arguments: { prompt: 'spin' } }, undefined, {
        signal: abort.signal,
        onprogress: () => {
          steps++;
        },
      })
      .catch((err: Error) => err);
    await waitFor('the spinner to go round', () => Promise.resolve(steps >= 10));
    abort.abort();
    expect(await call).toBeInstanceOf(Error);
    const [row] = await stack.sql<{ id: string }>(
      `SELECT r.id FROM runs r JOIN agents a ON a.id::text = r.agent_id WHERE a.name = 'spinner'`,
    );
    await waitFor(
      'the run to be cancelled',
      async () => (await stack.api('GET', `/v1/runs/${row.id}`)).body.status === 'cancelled',
    );
  });

  it('tells a bad call what is wrong, as a tool error', async () => {
    const none = await client.callTool({ name: 'Echo_bot', arguments: {} });
    expect(none.isError).toBe(true);
    expect(none.content).toEqual([{ type: 'text', text: 'prompt is required (a non-empty string)' }]);
    const unknown = await client.callTool({ name: 'nobody', arguments: { prompt: 'x' } });
    expect(unknown.isError).toBe(true);
  });

  it("refuses a request without the tenant's key, and shows another tenant only its own agents", async () => {
    const res = await fetch(`${stack.gatewayUrl}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    const get = await fetch(`${stack.gatewayUrl}/mcp`, { headers: { Authorization: `Bearer ${stack.key}` } });
    expect(get.status).toBe(405);
    const other = await stack.newTenant('mcp-other', ADMIN);
    const theirs = await connect(other.key);
    expect((await theirs.listTools()).tools.map((t) => t.name)).toEqual(['default']);
    await theirs.close();
  });
});
