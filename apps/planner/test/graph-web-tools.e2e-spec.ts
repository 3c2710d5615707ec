import { componentIdOfNode } from '@switchyard/contracts';
import { WEB_TOOLS } from '@switchyard/provider-tools';
import { ProviderStandIn, TestStack } from '@switchyard/testing';
import { canvas } from './graph-fixtures';
import { WEB_TOOL_CASES, type WebToolCase } from './web-tools';

// RAGFlow's web tools (libs/provider-tools WEB_TOOLS) through real processes: each one's base URL
// moved by SWITCHYARD_PROVIDER_URL_<TOOL> to a local server answering in the real API's shape,
// reached through the address guard (SWITCHYARD_PROVIDER_ALLOW_HOSTS), each tool run as a canvas
// component and offered to an Agent whose model calls it.

const ADMIN = 'admin-token-for-the-web-tools-e2e';
let stack: TestStack;
let standIn: ProviderStandIn;
let tenant: { id: string; key: string };

const prefixOf = (c: WebToolCase) => c.envName.toLowerCase();

beforeAll(async () => {
  standIn = new ProviderStandIn();
  for (const c of WEB_TOOL_CASES) {
    c.routes(standIn, prefixOf(c));
  }
  await standIn.start();
  stack = await TestStack.start({
    script: 'apps/planner/test/fixtures/graph.script.json',
    env: {
      SWITCHYARD_ADMIN_TOKEN: ADMIN,
      SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1',
      ...Object.fromEntries(
        WEB_TOOL_CASES.map((c) => [`SWITCHYARD_PROVIDER_URL_${c.envName}`, `${standIn.url}/${prefixOf(c)}`]),
      ),
    },
  });
  tenant = await stack.newTenant('web-tools', ADMIN);
  for (const c of WEB_TOOL_CASES.filter((x) => x.key)) {
    const set = await stack.api(
      'PUT',
      `/v1/admin/tenants/${tenant.id}/provider-keys/${c.key!.provider}`,
      { secret: c.key!.secret },
      { Authorization: `Bearer ${ADMIN}` },
    );
    expect(set.status).toBe(200);
  }
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await standIn?.stop();
});

const asTenant = () => ({ Authorization: `Bearer ${tenant.key}` });

async function runAgent(name: string, dsl: Record<string, unknown>, prompt: string) {
  const agent = await stack.api('POST', '/v1/agents', { name, kind: 'graph', dsl }, asTenant());
  expect(agent.status).toBe(201);
  const res = await stack.api('POST', '/v1/runs', { agent_id: agent.body.id, input: { prompt } }, asTenant());
  expect(res.status).toBe(202);
  const run = await stack.ended(res.body.run_id as string, 60_000, asTenant());
  const actions = (await stack.api('GET', `/v1/runs/${res.body.run_id}/actions`, undefined, asTenant())).body
    .actions as { node: string; result: { outputs?: Record<string, unknown> } }[];
  return { run, actions };
}

describe.each(WEB_TOOL_CASES.map((c) => [c.component, c] as const))('%s', (_name, c) => {
  it('runs as a canvas component on the stand-in, its output shown by a Message', async () => {
    const id = `${c.component}:Tool`;
    const output = c.output ?? 'formalized_content';
    const { run, actions } = await runAgent(
      `web-${c.component}`,
      canvas({
        [id]: { name: c.component, params: c.params, downstream: ['Message:Show'] },
        'Message:Show': { name: 'Message', params: { content: [`{${id}@${output}}`] } },
      }),
      c.prompt,
    );
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    const outputs = actions.find((a) => componentIdOfNode(a.node) === id)?.result.outputs ?? {};
    for (const text of c.expected) {
      expect(String(outputs[output])).toContain(text);
      expect(run.output.answer).toContain(text);
    }
  });

  it("is an Agent's tool: the model calls it and reads its answer", async () => {
    const fn = `${fnOf(c)}_0`;
    await stack.putScript({
      strict: true,
      models: ['scripted'],
      rules: [
        {
          name: 'call',
          times: 1,
          when: { last_role: 'user', has_tools: true },
          reply: { tool_calls: [{ name: fn, arguments: c.agent.args }] },
        },
        {
          name: 'answer',
          times: 1,
          when: { last_role: 'tool', any_includes: c.agent.reads },
          reply: { content: `read it: ${fn}` },
        },
      ],
    });
    const { run } = await runAgent(
      `agent-${c.component}`,
      canvas({
        'Agent:Use': {
          name: 'Agent',
          params: {
            llm_id: 'scripted',
            sys_prompt: 'Use the tool.',
            prompts: [{ role: 'user', content: '{sys.query}' }],
            tools: [{ component_name: c.component, name: c.component, params: c.params }],
          },
          downstream: ['Message:Show'],
        },
        'Message:Show': { name: 'Message', params: { content: ['{Agent:Use@content}'] } },
      }),
      c.prompt,
    );
    expect(run.error).toBeNull();
    expect(run.output.answer).toMatch(new RegExp(`read it: ${fn}$`));
  });
});

/** The function name the model sees (RAGFlow's meta name; the Agent appends `_<index>`). */
function fnOf(c: WebToolCase): string {
  const spec = WEB_TOOLS.find((s) => s.component === c.component);
  if (!spec) {
    throw new Error(`${c.component} is not one of WEB_TOOLS`);
  }
  return spec.functionName;
}
