import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { componentIdOfNode } from '@switchyard/contracts';
import { TestStack, nextPause, waitFor } from '@switchyard/testing';

// CodeExec end to end: the planner runs a canvas's script in the sandbox (a confined child process
// per run). RAGFlow's all.json `code` branch must give RAGFlow's answer; a script that never ends
// must fail its run with a timeout naming the component, and the planner must go on serving.

const FIXTURES = join(__dirname, '../../../libs/graph/fixtures');
const TIMEOUT_MS = 3000;

interface Golden {
  inputs: { turns: { query: string; resume?: Record<string, unknown> }[] };
  answer: string;
  path: string[];
}
const golden = (name: string): Golden =>
  JSON.parse(readFileSync(join(FIXTURES, 'expected', `${name}.json`), 'utf8')) as Golden;

/** A one-component canvas: Begin → the CodeExec → a Message showing its result. */
function codeCanvas(id: string, lang: string, script: string, args: Record<string, string> = {}) {
  return {
    components: {
      begin: { obj: { component_name: 'Begin', params: {} }, downstream: [id], upstream: [] },
      [id]: {
        obj: {
          component_name: 'CodeExec',
          params: { lang, script, arguments: args, outputs: { result: { type: 'Any', value: '' } } },
        },
        downstream: ['Message:Show'],
        upstream: ['begin'],
      },
      'Message:Show': {
        obj: { component_name: 'Message', params: { content: [`result={${id}@result}`] } },
        downstream: [],
        upstream: [id],
      },
    },
    globals: {},
  };
}

let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/planner/test/fixtures/graph.script.json',
    env: { SANDBOX_TIMEOUT_MS: String(TIMEOUT_MS), SANDBOX_MEMORY_MB: '128' },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function createAgent(name: string, dsl: unknown): Promise<string> {
  const res = await stack.api('POST', '/v1/agents', { name, kind: 'graph', dsl });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const statusOf = async (runId: string) => (await stack.api('GET', `/v1/runs/${runId}`)).body;

async function runToEnd(agentId: string, prompt: string, resumes: Record<string, unknown>[] = []) {
  const res = await stack.api('POST', '/v1/runs', { agent_id: agentId, input: { prompt } });
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  let asked = '';
  for (const resume of resumes) {
    asked = (await nextPause(stack, runId, asked)).task_id;
    expect((await stack.api('POST', `/v1/runs/${runId}/resume`, { input: resume })).status).toBe(202);
  }
  // Pyodide starts in seconds, more on a busy machine: wait well past the default.
  await waitFor(
    'the run to end',
    async () => ['succeeded', 'failed', 'cancelled'].includes((await statusOf(runId)).status),
    150_000,
  );
  const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as {
    node: string;
    result: { paused?: boolean; outputs?: Record<string, unknown> };
  }[];
  return { run: await statusOf(runId), actions };
}

describe('graph agents: CodeExec in the sandbox', () => {
  it("all.code: RAGFlow's Python CodeExec doubles the form's number, as RAGFlow answered", async () => {
    const dsl = JSON.parse(readFileSync(join(FIXTURES, 'ragflow', 'all.json'), 'utf8')) as {
      components: Record<string, { obj: { params: { conditions?: { to: string[] }[] } } }>;
    };
    // As the golden did: the dangling CodeExec:FunnyBroomsShare is taken out of the Switch.
    for (const cond of dsl.components['Switch:Route'].obj.params.conditions ?? []) {
      cond.to = cond.to.filter((id) => id !== 'CodeExec:FunnyBroomsShare');
    }
    const g = golden('all.code');
    const agent = await createAgent('all-code', dsl);
    const { run, actions } = await runToEnd(
      agent,
      g.inputs.turns[0].query,
      g.inputs.turns.slice(1).map((t) => t.resume ?? {}),
    );
    expect(run.error).toBeNull();
    expect(run.output.answer).toBe(g.answer);
    const path = actions
      .filter((a) => !a.result?.paused)
      .map((a) => componentIdOfNode(a.node))
      .filter((id): id is string => id !== undefined);
    expect(path).toEqual(g.path);
    const code = actions.find((a) => componentIdOfNode(a.node) === 'CodeExec:Double');
    expect(code?.result.outputs).toMatchObject({
      result: 42,
      actual_type: 'Number',
      content: '42',
      _ERROR: '',
    });
  }, 300_000);

  it('a CodeExec that loops forever fails its run with a timeout naming the component; the planner serves the next run', async () => {
    const plannerPid = stack.pid('planner');
    const spin = await createAgent(
      'spin',
      codeCanvas('CodeExec:Spin', 'python', 'def main():\n    while True:\n        pass\n'),
    );
    const started = Date.now();
    const { run, actions } = await runToEnd(spin, 'go');
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('component_failed');
    expect(run.error.message).toBe(
      `component CodeExec:Spin: CodeExec timed out: the code ran past its ${TIMEOUT_MS} ms limit (SANDBOX_TIMEOUT_MS)`,
    );
    // The error is the component's `_ERROR` output, as RAGFlow's error path sets it.
    const failedAction = actions.find((a) => componentIdOfNode(a.node) === 'CodeExec:Spin');
    expect(failedAction?.result.outputs?.['_ERROR']).toContain('timed out');
    expect(Date.now() - started).toBeLessThan(150_000);

    // The same planner process (not a restart) runs the next canvas, in both languages.
    const js = await createAgent(
      'js-after',
      codeCanvas(
        'CodeExec:Js',
        'javascript',
        'function main(args) { return args.q.split("").reverse().join("") }',
        {
          q: 'sys.query',
        },
      ),
    );
    const next = await runToEnd(js, 'abc');
    expect(next.run.error).toBeNull();
    expect(next.run.output.answer).toBe('result=cba');
    const py = await createAgent(
      'py-after',
      codeCanvas('CodeExec:Py', 'python', 'def main(q):\n    return {"len": len(q)}\n', { q: 'sys.query' }),
    );
    const again = await runToEnd(py, 'four');
    expect(again.run.error).toBeNull();
    expect(again.run.output.answer).toBe('result={"len": 4}');
    expect(stack.pid('planner')).toBe(plannerPid);
  }, 400_000);

  it('a JavaScript code error fails the run with the error and its line, through _ERROR', async () => {
    const broken = await createAgent(
      'js-broken',
      codeCanvas('CodeExec:Broken', 'javascript', 'function main() {\n  return undefinedThing + 1;\n}'),
    );
    const { run } = await runToEnd(broken, 'go');
    expect(run.status).toBe('failed');
    expect(run.error.message).toMatch(
      /^component CodeExec:Broken: ReferenceError: 'undefinedThing' is not defined/,
    );
    expect(run.error.message).toContain('main.js:2');
  }, 200_000);

  it("CodeExec as an Agent tool: the model's script runs in the sandbox with the entry's canvas arguments; a failing script is an _ERROR the model reads", async () => {
    const rules = [
      {
        name: 'write-code',
        times: 1,
        when: { tools_include: 'execute_code_0', last_role: 'user' },
        reply: {
          tool_calls: [
            {
              name: 'execute_code_0',
              arguments: {
                lang: 'javascript',
                script:
                  'function main(args) { return { doubled: Number(args.n) * 2 } }\nmodule.exports = { main };',
              },
            },
          ],
        },
      },
      {
        name: 'broken-code',
        times: 1,
        when: { last_role: 'tool', any_includes: '"doubled":42' },
        reply: {
          tool_calls: [
            {
              name: 'execute_code_0',
              arguments: { lang: 'javascript', script: 'function main() { return nope; }' },
            },
          ],
        },
      },
      {
        name: 'answer',
        times: 1,
        when: { last_role: 'tool', any_includes: '_ERROR' },
        reply: { content: 'first: {{echo:"doubled":(\\d+)}}; second failed' },
      },
    ];
    await stack.putScript({ strict: true, models: ['scripted'], rules });
    const agent = await createAgent('agent-code', {
      components: {
        begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['Agent:Coder'], upstream: [] },
        'Agent:Coder': {
          obj: {
            component_name: 'Agent',
            params: {
              llm_id: 'scripted',
              sys_prompt: 'Compute with code.',
              prompts: [{ role: 'user', content: '{sys.query}' }],
              tools: [
                { component_name: 'CodeExec', name: 'CodeExec', params: { arguments: { n: 'sys.query' } } },
              ],
            },
          },
          downstream: ['Message:Show'],
          upstream: ['begin'],
        },
        'Message:Show': {
          obj: { component_name: 'Message', params: { content: ['{Agent:Coder@content}'] } },
          downstream: [],
          upstream: ['Agent:Coder'],
        },
      },
      globals: {},
    });
    const { run } = await runToEnd(agent, '21');
    expect(run.error).toBeNull();
    expect(run.output.answer).toMatch(/first: 42; second failed$/);
    const requests = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as { rule: string }[];
    expect(requests.map((r) => r.rule).slice(-3)).toEqual(['write-code', 'broken-code', 'answer']);
  }, 200_000);
});
