import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Action, RunEvent } from '@switchyard/contracts';
import { SERVICE_APPS, TestStack, readSse, waitFor } from '@switchyard/testing';

// Two replicas of the orchestrator and of every node service share the work through JetStream
// durable consumers and Postgres row locks: no double routing, no lost work.

let stack: TestStack;
let slow: Server;
let slowHits = 0;

beforeAll(async () => {
  slow = createServer((_req, res) => {
    slowHits++;
    setTimeout(() => res.end('{"slow":true}'), 4000).unref();
  });
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  stack = await TestStack.start({
    script: 'apps/run-orchestrator/test/fixtures/durability.script.json',
    env: {
      SWITCHYARD_ACK_WAIT_MS: '3000',
      SWITCHYARD_TASK_TIMEOUT_MS: '30000',
      // The test's own slow HTTP server lives on loopback.
      SWITCHYARD_HTTP_ALLOW_HOSTS: '127.0.0.1',
    },
  });
  await Promise.all(SERVICE_APPS.filter((a) => a !== 'gateway').map((a) => stack.startService(a, 2)));
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  slow?.close();
});

async function start(prompt: string): Promise<string> {
  const res = await stack.api('POST', '/v1/runs', { input: { prompt } });
  expect(res.status).toBe(202);
  return res.body.run_id as string;
}

async function finished(runId: string): Promise<{ status: string }> {
  return waitFor(
    `run ${runId} to end`,
    async () => {
      const run = (await stack.api('GET', `/v1/runs/${runId}`)).body as { status: string };
      return ['succeeded', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
    },
    90_000,
    200,
  );
}

const count = (text: string, re: RegExp) => (text.match(re) ?? []).length;

it('20 concurrent runs over two replicas of every service: each step applied once, work shared', async () => {
  const prompts = Array.from({ length: 20 }, (_, i) => `what is ${i + 1}*${i + 2}?`);
  const runs = await Promise.all(prompts.map(start));
  const done = await Promise.all(runs.map(finished));
  expect(done.map((d) => d.status)).toEqual(runs.map(() => 'succeeded'));
  const perRun = await stack.sql<{ n: string; distinct_tasks: string }>(
    `SELECT count(*) AS n, count(DISTINCT task_id) AS distinct_tasks FROM state_deltas
     WHERE run_id = ANY($1::uuid[]) GROUP BY run_id`,
    [runs],
  );
  expect(perRun.map((r) => [Number(r.n), Number(r.distinct_tasks)])).toEqual(runs.map(() => [8, 8]));
  // Both replicas of the node services did some of the work.
  for (const app of ['planner', 'tool-executor', 'reflection', 'retrieval', 'output'] as const) {
    const a = count(stack.log(app), /delta published/g);
    const b = count(stack.log(`${app}-2`), /delta published/g);
    expect({ app, shared: a > 0 && b > 0 }).toEqual({ app, shared: true });
    expect(a + b).toBeGreaterThanOrEqual(20);
  }
}, 120_000);

it('fan-out of three calls with the tool-executor killed after two replied: only the missing call runs again', async () => {
  await stack.stopService('tool-executor', 2);
  const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`;
  const script = (await (await fetch(`${stack.llmUrl}/_script`)).json()) as { rules: unknown[] };
  script.rules.unshift({
    name: 'planner-fanout3',
    when: { system_includes: '[switchyard:planner]', any_includes: '[fanout3]', last_role: 'user' },
    reply: {
      tool_calls: [
        { name: 'calculator', arguments: { expression: '1+1' } },
        { name: 'calculator', arguments: { expression: '2+2' } },
        { name: 'http_get', arguments: { url } },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 10 },
    },
  });
  const put = await fetch(`${stack.llmUrl}/_script`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(script),
  });
  expect(put.status).toBe(200);

  slowHits = 0;
  const runId = await start('[fanout3] three calls');
  await waitFor('two calculator deltas to arrive while http_get works', async () => {
    const rows = await stack.sql<{ node: string; status: string }>(
      `SELECT node, status FROM run_tasks WHERE run_id = $1 AND node IN ('calculator', 'http_get')`,
      [runId],
    );
    return (
      rows.filter((r) => r.node === 'calculator' && r.status === 'arrived').length === 2 && slowHits === 1
    );
  });
  stack.kill('tool-executor');
  await stack.restart('tool-executor');
  expect((await finished(runId)).status).toBe('succeeded');

  const events = (
    await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
      headers: { Authorization: `Bearer ${stack.key}` },
    })
  ).frames.map((f) => JSON.parse(f.data) as RunEvent);
  const started = events
    .filter((e) => e.event_type === 'node_started')
    .map((e) => (e.payload as { node: string }).node);
  expect(started.filter((n) => n === 'calculator')).toHaveLength(2);
  expect(started.filter((n) => n === 'http_get')).toHaveLength(2);
  expect(slowHits).toBe(2);
  const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as Action[];
  expect(actions.map((a) => a.node)).toEqual([
    'start',
    'intake',
    'memory',
    'planner',
    'calculator',
    'calculator',
    'http_get',
    'reflection',
    'planner',
    'output',
  ]);
  expect(actions.find((a) => a.node === 'http_get')?.result).toMatchObject({
    status: 200,
    body: '{"slow":true}',
  });
}, 90_000);
