import { componentIdOfNode } from '@switchyard/contracts';
import { TestStack, waitFor } from '@switchyard/testing';
import { dsl, golden as goldenOf, putScript } from './graph-fixtures';

// A graph run has the default agent's guarantees: it survives kill -9 of the service running its
// components (each component applied once, the answer RAGFlow gave), and a cancel stops a Loop
// that is still going round, counting.

interface Golden {
  inputs: { turns: { query: string; inputs?: Record<string, unknown> }[]; scripted_llm: { reply: string }[] };
  answer: string;
  path: string[];
  llm: { messages: { role: string; content: string }[] }[];
}
const golden = (name: string): Golden => goldenOf<Golden>(name);

let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({ script: 'apps/planner/test/fixtures/graph.script.json' });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const runOf = async (runId: string) => (await stack.api('GET', `/v1/runs/${runId}`)).body;
const ended = (status: string) => ['succeeded', 'failed', 'cancelled'].includes(status);

async function createAgent(name: string, canvas: Record<string, unknown>, maxSteps = 50): Promise<string> {
  const res = await stack.api('POST', '/v1/agents', {
    name,
    kind: 'graph',
    dsl: canvas,
    max_steps: maxSteps,
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('graph runs under faults', () => {
  it('six graph runs survive kill -9 of the planner mid-run: every component applied once, the answers RAGFlow gave', async () => {
    const g = golden('customer_feedback_dispatcher.negative_transport');
    // Each Categorize call takes a while, so the kill lands while components are running.
    const rules = g.inputs.scripted_llm.map((r, i) => {
      const [system, user] = g.llm[i].messages;
      return {
        name: `golden-${i}`,
        when: { system_includes: system.content, user_includes: user.content },
        reply: { content: r.reply, delay_ms: 400 },
      };
    });
    await putScript(stack, { strict: true, models: ['scripted'], rules });
    const agent = await createAgent('feedback', dsl('customer_feedback_dispatcher.json'));
    const runIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await stack.api('POST', '/v1/runs', {
        agent_id: agent,
        input: { prompt: 'review', inputs: g.inputs.turns[0].inputs },
      });
      expect(res.status).toBe(202);
      runIds.push(res.body.run_id as string);
    }
    const calls = async () => ((await (await fetch(`${stack.llmUrl}/_requests`)).json()) as unknown[]).length;
    // Each call takes 400 ms: with three asked, the kill cuts calls off mid-flight.
    await waitFor('Categorize calls in flight', async () => (await calls()) >= 3);
    stack.kill('planner');
    await stack.restart('planner');
    await waitFor(
      'every run to end',
      async () => (await Promise.all(runIds.map(runOf))).every((r) => ended(r.status as string)),
      120_000,
    );
    for (const runId of runIds) {
      const run = await runOf(runId);
      expect(run.error).toBeNull();
      expect(run.output.answer).toBe(g.answer);
      const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as {
        node: string;
      }[];
      expect(actions.map((a) => componentIdOfNode(a.node)).filter(Boolean)).toEqual(g.path);
    }
    // The kill landed mid-run: model calls cut off by it were made again (2 per run otherwise).
    expect(await calls()).toBeGreaterThan(runIds.length * 2);
    // No task's delta applied twice, none left unapplied.
    expect(
      await stack.sql(
        `SELECT run_id, node, count(*) FROM run_tasks WHERE run_id = ANY($1::uuid[]) AND status <> 'applied'
         GROUP BY run_id, node`,
        [runIds],
      ),
    ).toEqual([]);
  }, 180_000);

  it('a cancel stops a counting Loop that is still going round: cancelled, nothing applied after, the count exact', async () => {
    // RAGFlow's counter loop: the body adds 1 to the Loop's own variable (`Loop:Spin@n += 1`).
    const spin = {
      components: {
        begin: {
          obj: { component_name: 'Begin', params: {} },
          downstream: ['Loop:Spin'],
          upstream: [],
        },
        'Loop:Spin': {
          obj: {
            component_name: 'Loop',
            params: {
              loop_variables: [{ variable: 'n', input_mode: 'constant', type: 'number', value: 0 }],
              logical_operator: 'and',
              loop_termination_condition: [
                { variable: 'Loop:Spin@n', operator: '≥', value: 1_000_000, input_mode: 'constant' },
              ],
              maximum_loop_count: 5000,
            },
          },
          downstream: ['Message:Done'],
          upstream: ['begin'],
        },
        'LoopItem:SpinStart': {
          obj: { component_name: 'LoopItem', params: {} },
          downstream: ['VariableAssigner:Tick'],
          upstream: [],
          parent_id: 'Loop:Spin',
        },
        'VariableAssigner:Tick': {
          obj: {
            component_name: 'VariableAssigner',
            params: { variables: [{ variable: 'Loop:Spin@n', operator: '+=', parameter: 1 }] },
          },
          downstream: [],
          upstream: ['LoopItem:SpinStart'],
          parent_id: 'Loop:Spin',
        },
        'Message:Done': {
          obj: { component_name: 'Message', params: { content: ['looped'] } },
          downstream: [],
          upstream: ['Loop:Spin'],
        },
      },
    };
    const agent = await createAgent('spin', spin, 10_000);
    const res = await stack.api('POST', '/v1/runs', { agent_id: agent, input: { prompt: 'go' } });
    expect(res.status).toBe(202);
    const runId = res.body.run_id as string;
    const count = async () =>
      Number(
        (
          await stack.sql<{ n: string }>(`SELECT count(*) AS n FROM state_deltas WHERE run_id = $1`, [runId])
        )[0].n,
      );
    await waitFor('the Loop to go round a few times', async () => (await count()) >= 20);
    expect((await stack.api('POST', `/v1/runs/${runId}/cancel`)).status).toBeLessThan(300);
    await waitFor('the run to be cancelled', async () => (await runOf(runId)).status === 'cancelled');
    const atCancel = await count();
    await new Promise((r) => setTimeout(r, 1_000));
    // Nothing was applied after the cancel, and the Loop never reached its Message.
    expect(await count()).toBe(atCancel);
    const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as { node: string }[];
    expect(actions.map((a) => componentIdOfNode(a.node))).not.toContain('Message:Done');
    const ticks = actions.filter((a) => componentIdOfNode(a.node) === 'VariableAssigner:Tick').length;
    expect(ticks).toBeGreaterThan(5);
    // The Loop's counter is exactly the number of times its body ran: each applied once.
    const state = await stack.api('GET', `/v1/threads/${res.body.thread_id as string}/state`);
    expect(state.status).toBe(200);
    const graph = (state.body as { graph?: { outputs: Record<string, { n?: number }> } }).graph;
    expect(graph?.outputs['Loop:Spin']?.n).toBe(ticks);
  }, 120_000);
});
