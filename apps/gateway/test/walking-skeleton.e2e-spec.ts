import { connect } from 'nats';
import {
  ActionSchema,
  type Action,
  NODE_REGISTRY_BUCKET,
  NodeRegistrationSchema,
  type RunEvent,
  deltaSubject,
} from '@switchyard/contracts';
import { TestStack, readSse, waitFor } from '@switchyard/testing';

// The whole system as real processes: NATS JetStream, Postgres, Redis, the scripted model
// server, and the seven services; every request is real HTTP through the gateway.

const ACTION_FIELDS = [
  'id',
  'node',
  'preparation',
  'summary',
  'result',
  'usage',
  'next',
  'started_at',
  'finished_at',
  'attempt',
];

let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({ script: 'apps/gateway/test/fixtures/skeleton.script.json' });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function startRun(prompt: string): Promise<string> {
  const res = await stack.api('POST', '/v1/runs', { input: { prompt } });
  expect(res.status).toBe(202);
  return res.body.run_id as string;
}

async function follow(runId: string, headers: Record<string, string> = {}, query = ''): Promise<RunEvent[]> {
  const read = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events${query}`, {
    headers: { Authorization: `Bearer ${stack.key}`, ...headers },
    timeoutMs: 60_000,
  });
  expect(read.status).toBe(200);
  return read.frames.map((f) => {
    const e = JSON.parse(f.data) as RunEvent;
    expect(f.id).toBe(e.seq);
    expect(f.event).toBe(e.event_type);
    return e;
  });
}

async function actionsOf(runId: string): Promise<Action[]> {
  const res = await stack.api('GET', `/v1/runs/${runId}/actions`);
  expect(res.status).toBe(200);
  return res.body.actions as Action[];
}

describe('walking skeleton: one agent run end to end', () => {
  let runId: string;
  let live: RunEvent[];

  beforeAll(async () => {
    runId = await startRun('what is 2+3*4?');
    live = await follow(runId);
  }, 90_000);

  it('succeeds with the calculator result in the answer', async () => {
    const run = await stack.api('GET', `/v1/runs/${runId}`);
    expect(run.status).toBe(200);
    expect(run.body.status).toBe('succeeded');
    expect(run.body.error).toBeNull();
    expect(run.body.output.answer).toContain('14');
    expect(run.body.turn).toBe(0);
  });

  it('takes the design flow, one action per step, ids contiguous', async () => {
    const actions = await actionsOf(runId);
    expect(actions.map((a) => a.node)).toEqual([
      'start',
      'intake',
      'memory',
      'planner',
      'calculator',
      'reflection',
      'planner',
      'output',
    ]);
    expect(actions.map((a) => a.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(actions.map((a) => a.next)).toEqual([
      ['intake'],
      ['memory'],
      ['planner'],
      ['calculator'],
      ['reflection'],
      ['planner'],
      ['output'],
      [],
    ]);
    const calc = actions[4];
    expect(calc.result).toEqual({ expression: '2+3*4', value: 14 });
    const planner = actions[3].result as { tool_calls: { name: string; args: unknown }[] };
    expect(planner.tool_calls.map((c) => c.name)).toEqual(['calculator']);
  });

  it('asks for every structured reply natively, never with JSON in the prompt (the server log says so)', async () => {
    const log = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as {
      system: string;
      native_json: string | null;
      strict: boolean;
      rule: string | null;
    }[];
    const structured = log.filter((r) =>
      /\[switchyard:(intake|plan|reflection|output-structured)\]/.test(r.system),
    );
    // This run's intake, plan and reflection at least.
    expect(new Set(structured.map((r) => /\[switchyard:([a-z-]+)\]/.exec(r.system)?.[1]))).toEqual(
      new Set(['intake', 'plan', 'reflection']),
    );
    for (const r of structured) {
      expect(r).toMatchObject({ native_json: 'json_schema', strict: true });
      expect(r.system).not.toMatch(/json/i);
    }
  });

  it('records every field of the action contract on every action', async () => {
    for (const action of await actionsOf(runId)) {
      for (const field of ACTION_FIELDS) {
        expect(action).toHaveProperty(field);
      }
      expect(ActionSchema.safeParse(action).success).toBe(true);
      expect(Date.parse(action.finished_at)).toBeGreaterThanOrEqual(Date.parse(action.started_at));
      expect(action.attempt).toBe(1);
    }
  });

  it("sums the actions' usage into the run's usage, and it is what the model server reported", async () => {
    const actions = await actionsOf(runId);
    const sum = actions.reduce(
      (s, a) => ({
        prompt_tokens: s.prompt_tokens + a.usage.prompt_tokens,
        completion_tokens: s.completion_tokens + a.usage.completion_tokens,
        total_tokens: s.total_tokens + a.usage.total_tokens,
      }),
      { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    );
    const planner = actions[3].result as { tool_calls: { id: string }[] };
    const run = await stack.api('GET', `/v1/runs/${runId}`);
    expect(run.body.usage).toEqual(sum);
    // The thread state, rebuilt from the checkpoint log: usage[turn] is the same sum.
    const state = await stack.api('GET', `/v1/threads/${run.body.thread_id}/state`);
    expect(state.status).toBe(200);
    expect(state.body.usage[0]).toEqual(sum);
    expect(state.body.version).toBe(actions.length);
    expect(state.body.action_history[0]).toEqual(actions);
    expect(state.body.chat_history).toEqual([
      { role: 'user', content: 'what is 2+3*4?' },
      { role: 'assistant', content: run.body.output.answer },
    ]);
    expect(state.body.task_goals).toEqual(['what is 2+3*4?']);
    // A todo recorded from a tool call has every field of seed 003's todo (empty where unknown).
    expect(Object.keys(state.body.todos[0][0]).sort()).toEqual(
      [
        'id',
        'task',
        'status',
        'dependencies',
        'suggested_tools',
        'priority',
        'execution_tips',
        'success_criteria',
        'critical_path_length',
        'retry',
        'max_retry',
        'retry_after',
        'error_history',
        'completion_details',
        'call_ids',
      ].sort(),
    );
    expect(state.body.todos[0][0]).toMatchObject({
      execution_tips: '',
      success_criteria: '',
      retry_after: null,
    });
    expect(state.body.todos[0]).toEqual([
      expect.objectContaining({
        task: 'calculator {"expression":"2+3*4"}',
        status: 'completed',
        suggested_tools: ['calculator'],
        call_ids: [planner.tool_calls[0].id],
        completion_details: expect.objectContaining({
          tool_used: 'calculator',
          output: { expression: '2+3*4', value: 14 },
        }),
      }),
    ]);
    // Time travel: the state right after the calculator step has its result and no answer yet.
    const v5 = await stack.api('GET', `/v1/threads/${run.body.thread_id}/state?version=5`);
    expect(v5.body.version).toBe(5);
    expect(v5.body.action_history[0].map((a: Action) => a.node)).toEqual([
      'start',
      'intake',
      'memory',
      'planner',
      'calculator',
    ]);
    expect(v5.body.chat_history).toHaveLength(1);
    // intake 20+6, planner (plan 20+4, then 35+8), reflection 30+12, planner 40+5, output 25+5
    // plus the thread's title 10+1 (the script's numbers).
    expect(sum).toEqual({ prompt_tokens: 180, completion_tokens: 41, total_tokens: 221 });
  });

  it('streams status, node_started, action, token and done events live, ending with done', () => {
    const types = live.map((e) => e.event_type);
    expect(types[0]).toBe('status');
    expect(live[0].payload).toEqual({ status: 'queued' });
    expect(types[types.length - 1]).toBe('done');
    expect(live[live.length - 1].payload).toEqual({ status: 'succeeded' });
    expect(types.filter((t) => t === 'action')).toHaveLength(8);
    expect(types.filter((t) => t === 'node_started')).toHaveLength(7);
    expect(types).toContain('token');
    const seqs = live.map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it('streams the answer as tokens while it is generated: they concatenate to the answer', async () => {
    const run = await stack.api('GET', `/v1/runs/${runId}`);
    const tokens = live
      .filter((e) => e.event_type === 'token')
      .map((e) => (e.payload as { text: string }).text);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join('')).toBe(run.body.output.answer);
    // Tokens come before the output action is committed.
    const lastToken = live.map((e) => e.event_type).lastIndexOf('token');
    const outputAction = live.findIndex(
      (e) => e.event_type === 'action' && (e.payload as { node: string }).node === 'output',
    );
    expect(lastToken).toBeLessThan(outputAction);
  });

  it('replays the same events from the start after the run ended', async () => {
    expect(await follow(runId)).toEqual(live);
  });

  it('resumes after a cursor: Last-Event-ID, after_seq id, and an integer count', async () => {
    const cut = 5;
    expect(await follow(runId, { 'Last-Event-ID': live[cut - 1].seq })).toEqual(live.slice(cut));
    expect(await follow(runId, {}, `?after_seq=${live[cut - 1].seq}`)).toEqual(live.slice(cut));
    expect(await follow(runId, {}, `?after_seq=${cut}`)).toEqual(live.slice(cut));
  });
});

describe('node registry', () => {
  it('holds every node, with the service that serves it and tool schemas', async () => {
    const nc = await connect({ servers: stack.natsUrl });
    try {
      const kv = await nc.jetstream().views.kv(NODE_REGISTRY_BUCKET);
      const services: Record<string, string> = {};
      // Collect the keys first: a kv.get inside the keys() iteration ends it early (nats.js).
      const keys: string[] = [];
      for await (const key of await kv.keys()) {
        keys.push(key);
      }
      for (const key of keys) {
        const entry = await kv.get(key);
        const reg = NodeRegistrationSchema.parse(JSON.parse(new TextDecoder().decode(entry!.value)));
        services[reg.name] = reg.service;
        if (reg.tool) {
          expect(reg.input_schema).toHaveProperty('properties');
        }
      }
      expect(services).toEqual({
        intake: 'planner',
        planner: 'planner',
        calculator: 'tool-executor',
        http_get: 'tool-executor',
        http_request: 'tool-executor',
        sql_query: 'tool-executor',
        extract_data_by_path: 'tool-executor',
        preprocess: 'tool-executor',
        reflection: 'reflection',
        memory: 'retrieval',
        // The end of a turn of a run with a user: writes it into the user's memory.
        archive: 'retrieval',
        output: 'output',
        ask_user: 'run-orchestrator',
        // The client's own functions (OpenAI tools): a human node, not offered as a tool.
        client_tool: 'run-orchestrator',
        retrieval: 'retrieval',
        // A graph agent's entry (its Begin component); other graph.* nodes are registered when first named.
        'graph.begin': 'planner',
      });
    } finally {
      await nc.close();
    }
  });
});

describe('tool catalogue', () => {
  it('GET /v1/tools lists exactly the registered tools with their schemas', async () => {
    const res = await stack.api('GET', '/v1/tools');
    expect(res.status).toBe(200);
    const tools = res.body.tools as {
      name: string;
      service: string;
      input_schema: { properties: object };
      idempotent: boolean;
    }[];
    expect(tools.map((t) => t.name)).toEqual([
      'ask_user',
      'calculator',
      'extract_data_by_path',
      'http_get',
      'http_request',
      'retrieval',
      'sql_query',
    ]);
    expect(tools.find((t) => t.name === 'retrieval')?.service).toBe('retrieval');
    expect(
      tools.filter((t) => !['ask_user', 'http_request'].includes(t.name)).every((t) => t.idempotent),
    ).toBe(true);
    // It may change things: a redelivered task must not count as harmless.
    expect(tools.find((t) => t.name === 'http_request')?.idempotent).toBe(false);
    expect(Object.keys(tools[1].input_schema.properties)).toEqual(['expression']);
  });
});

describe('failures are visible, never silent', () => {
  it('fans out two tool calls in one step, joins them in dispatch order, and records a tool error', async () => {
    const runId = await startRun('[fanout] two sums');
    await follow(runId);
    const actions = await actionsOf(runId);
    expect(actions.map((a) => a.node)).toEqual([
      'start',
      'intake',
      'memory',
      'planner',
      'calculator',
      'calculator',
      'reflection',
      'planner',
      'output',
    ]);
    expect(actions[4].result).toEqual({ expression: '6*7', value: 42 });
    expect(actions[5].error?.code).toBe('math_error');
    expect(actions[5].next).toEqual(['reflection']);
    const run = await stack.api('GET', `/v1/runs/${runId}`);
    expect(run.body.status).toBe('succeeded');
  });

  it('refuses http_get to a loopback address and goes on', async () => {
    const runId = await startRun('[fetch-local] read the secret');
    await follow(runId);
    const fetchAction = (await actionsOf(runId)).find((a) => a.node === 'http_get');
    expect(fetchAction?.error?.code).toBe('forbidden_address');
    expect(fetchAction?.error?.message).toContain('127.0.0.1');
    expect((await stack.api('GET', `/v1/runs/${runId}`)).body.status).toBe('succeeded');
  });

  it('fails a run whose next names a node no service registered, naming the node and the action', async () => {
    const runId = await startRun('[teleport] go');
    const events = await follow(runId);
    const run = await stack.api('GET', `/v1/runs/${runId}`);
    expect(run.body.status).toBe('failed');
    expect(run.body.error.code).toBe('unknown_node');
    expect(run.body.error.message).toMatch(/action #4 \(node "planner"\) asked for node "teleport"/);
    expect(events.map((e) => e.event_type).slice(-3)).toEqual(['error', 'status', 'done']);
  });

  it('terminates an invalid delta message, logs its subject, and fails its run with a clear error', async () => {
    const runId = await startRun('[slow] think');
    // Wait until the (slow) planner is working, then inject a malformed delta for the run.
    const seen = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
      headers: { Authorization: `Bearer ${stack.key}` },
      stopAfter: 20,
      timeoutMs: 3000,
    });
    expect(seen.frames.some((f) => f.event === 'node_started' && f.data.includes('"planner"'))).toBe(true);
    const nc = await connect({ servers: stack.natsUrl });
    try {
      const js = nc.jetstream();
      await js.publish(
        deltaSubject('planner'),
        new TextEncoder().encode(JSON.stringify({ run_id: runId, node: 'planner' })),
        {
          msgID: `bad-${runId}`,
        },
      );
    } finally {
      await nc.close();
    }
    const events = await follow(runId);
    const run = await stack.api('GET', `/v1/runs/${runId}`);
    expect(run.body.status).toBe('failed');
    expect(run.body.error.code).toBe('invalid_delta');
    expect(run.body.error.message).toContain('sy.delta.planner');
    expect(events[events.length - 1].payload).toEqual({ status: 'failed' });
    expect(stack.log('run-orchestrator')).toMatch(/"subject":"sy\.delta\.planner".*invalid message/);
    // Terminated (the log line follows the run's failure), and not redelivered.
    const terminations = () =>
      stack.log('run-orchestrator').match(/terminating message on sy\.delta\.planner/g) ?? [];
    await waitFor('the termination to be logged', async () => terminations().length > 0, 5000);
    // The slow planner's real delta arrives after the failure and is discarded: no action after it.
    await new Promise((r) => setTimeout(r, 4500));
    expect(terminations()).toHaveLength(1);
    const after = await follow(runId);
    expect(
      after.filter((e) => e.event_type === 'action').map((e) => (e.payload as { node: string }).node),
    ).toEqual(['start', 'intake', 'memory']);
  });
  it('terminates an invalid task message at the node service and fails its run, naming the subject', async () => {
    const runId = await startRun('[slow] ponder');
    const nc = await connect({ servers: stack.natsUrl });
    try {
      await nc
        .jetstream()
        .publish(
          'sy.task.tool-executor.calculator',
          new TextEncoder().encode(JSON.stringify({ run_id: runId, node: 'calculator', version: 'x' })),
          { msgID: `bad-task-${runId}` },
        );
    } finally {
      await nc.close();
    }
    const events = await follow(runId);
    const run = await stack.api('GET', `/v1/runs/${runId}`);
    expect(run.body.status).toBe('failed');
    expect(run.body.error.code).toBe('invalid_task');
    expect(run.body.error.message).toContain('sy.task.tool-executor.calculator');
    expect(events.filter((e) => e.event_type === 'error')).toHaveLength(1);
    expect(stack.log('tool-executor')).toMatch(
      /"subject":"sy\.task\.tool-executor\.calculator".*invalid task message/,
    );
    const taskTerminations = () =>
      stack.log('tool-executor').match(/terminating message on sy\.task\.tool-executor\.calculator/g) ?? [];
    await waitFor('the termination to be logged', async () => taskTerminations().length > 0, 5000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(taskTerminations()).toHaveLength(1);
  });
});

describe('human input', () => {
  it('ask_user puts the run in waiting; an invalid answer is refused (400, still waiting); a valid one continues it', async () => {
    const runId = await startRun('[ask] greet me');
    const waiting = await waitFor('the run to wait', async () => {
      const run = await stack.api('GET', `/v1/runs/${runId}`);
      return run.body.status === 'waiting' ? run.body : undefined;
    });
    expect(waiting.status).toBe('waiting');
    // A waiting run holds none of its tenant's running slots (it holds no task either).
    const slotOf = async () =>
      (await stack.sql<{ slot: number }>('SELECT slot FROM tenant_run_slots WHERE run_id = $1', [runId]))
        .length;
    expect(await slotOf()).toBe(0);
    const seen = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
      headers: { Authorization: `Bearer ${stack.key}` },
      timeoutMs: 1500,
    });
    const ask = seen.frames.find((f) => f.event === 'waiting_for_user');
    expect(JSON.parse(ask!.data).payload).toEqual({
      question: 'What is your name?',
      input_schema: expect.objectContaining({ required: ['name'] }),
    });

    const bad = await stack.api('POST', `/v1/runs/${runId}/resume`, { input: { nickname: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect((await stack.api('GET', `/v1/runs/${runId}`)).body.status).toBe('waiting');

    const good = await stack.api('POST', `/v1/runs/${runId}/resume`, { input: { name: 'Ada' } });
    expect(good.status).toBe(202);
    const events = await follow(runId);
    // Whatever slot the resumed run took was freed at its end.
    expect(await slotOf()).toBe(0);
    const run = await stack.api('GET', `/v1/runs/${runId}`);
    expect(run.body.status).toBe('succeeded');
    expect(run.body.output.answer).toBe('Hello Ada!');
    const actions = await actionsOf(runId);
    expect(actions.map((a) => a.node)).toEqual([
      'start',
      'intake',
      'memory',
      'planner',
      'ask_user',
      'planner',
      'output',
    ]);
    expect(actions[4].result).toEqual({ name: 'Ada' });
    // Nothing ran twice: one planner call before the question, one after.
    expect(
      events.filter((e) => e.event_type === 'node_started').map((e) => (e.payload as { node: string }).node),
    ).toEqual(['intake', 'memory', 'planner', 'planner', 'output']);
    const statuses = events
      .filter((e) => e.event_type === 'status')
      .map((e) => (e.payload as { status: string }).status);
    expect(statuses).toEqual(['queued', 'running', 'waiting', 'running', 'succeeded']);
    const again = await stack.api('POST', `/v1/runs/${runId}/resume`, { input: { name: 'Bob' } });
    expect(again.status).toBe(409);
  });
});

describe('gateway basics', () => {
  it('answers 401 without a key, 400 for a bad id, 404 for an unknown run, 400 with details for a bad body', async () => {
    const noKey = await fetch(`${stack.gatewayUrl}/v1/runs/00000000-0000-4000-8000-000000000000`);
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const badId = await stack.api('GET', '/v1/runs/not-a-uuid');
    expect(badId.status).toBe(400);
    expect(badId.body.error.code).toBe('invalid_request');
    const unknown = await stack.api('GET', '/v1/runs/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const badBody = await stack.api('POST', '/v1/runs', { input: { prompt: '' }, extra: 1 });
    expect(badBody.status).toBe(400);
    expect(badBody.body.error.details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(['input.prompt']),
    );
    const badCursor = await stack.api(
      'GET',
      `/v1/runs/00000000-0000-4000-8000-000000000000/events?after_seq=abc`,
    );
    expect(badCursor.status).toBe(400);
  });

  it('serves health, readiness and metrics', async () => {
    expect((await fetch(`${stack.gatewayUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${stack.gatewayUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(JSON.stringify(await ready.json())).toMatch(/postgres.*redis.*nats/);
    expect(await (await fetch(`${stack.gatewayUrl}/metrics`)).text()).toContain('process_cpu_seconds_total');
  });

  it("gives a new thread's node services its whole log with their tasks: none reads its state from Postgres", async () => {
    const nodeServices = ['planner', 'tool-executor', 'reflection', 'retrieval', 'output'] as const;
    const reads = async (): Promise<Record<string, number>> => {
      const counts: Record<string, number> = {};
      for (const app of nodeServices) {
        const text = await (await fetch(`http://127.0.0.1:${stack.ports.get(app)}/metrics`)).text();
        expect(text).toContain('# TYPE switchyard_state_reads_total counter');
        counts[app] = [...text.matchAll(/^switchyard_state_reads_total\{[^}]*\} (\d+)$/gm)].reduce(
          (sum, m) => sum + Number(m[1]),
          0,
        );
      }
      return counts;
    };
    const before = await reads();

    const runId = await startRun('what is 2+3*4?');
    const events = await follow(runId);

    expect(events.at(-1)).toMatchObject({ event_type: 'done', payload: { status: 'succeeded' } });
    // Its tasks ran in every node service, each seeing the thread for the first time.
    expect(new Set((await actionsOf(runId)).map((a) => a.node))).toEqual(
      new Set(['start', 'intake', 'memory', 'planner', 'calculator', 'reflection', 'output']),
    );
    expect(await reads()).toEqual(before);
  });
});
