import type { Action, CancelAcks, RunEvent } from '@switchyard/contracts';
import { connect } from 'nats';
import { TestStack, readSse, waitFor } from '@switchyard/testing';

// Durable orchestration against real processes: multi-turn threads, multitask modes, fenced
// cancel, guards, the task reaper, and crashes (kill -9) of services, NATS and Postgres links.

const TIMEOUT_MS = 6000;
/** The reaper test's reflection deadline (its agent's node_timeouts_ms). */
const REAPER_TIMEOUT_MS = 12_000;
let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/run-orchestrator/test/fixtures/durability.script.json',
    env: {
      SWITCHYARD_TASK_TIMEOUT_MS: String(TIMEOUT_MS),
      SWITCHYARD_ACK_WAIT_MS: '3000',
      SWITCHYARD_REAPER_INTERVAL_MS: '500',
      SWITCHYARD_TASK_MAX_ATTEMPTS: '3',
      SWITCHYARD_DEFAULT_MAX_STEPS: '20',
    },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

interface Run {
  run_id: string;
  thread_id: string;
  status: string;
  turn: number;
  steps: number;
  started_at: string | null;
  finished_at: string | null;
  output: { answer: string } | null;
  error: { code: string; message: string } | null;
}

async function post(
  prompt: string,
  extra: Record<string, unknown> = {},
): Promise<{ status: number; body: Run }> {
  return stack.api('POST', '/v1/runs', { input: { prompt }, ...extra });
}

async function start(prompt: string, extra: Record<string, unknown> = {}): Promise<Run> {
  const res = await post(prompt, extra);
  expect(res.status).toBe(202);
  return res.body;
}

async function events(
  runId: string,
  opts: { stopAfter?: number; timeoutMs?: number } = {},
): Promise<RunEvent[]> {
  const read = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
    headers: { Authorization: `Bearer ${stack.key}` },
    timeoutMs: opts.timeoutMs ?? 90_000,
    stopAfter: opts.stopAfter,
  });
  return read.frames.map((f) => JSON.parse(f.data) as RunEvent);
}

async function finished(runId: string, timeoutMs = 90_000): Promise<Run> {
  return waitFor(
    `run ${runId} to end`,
    async () => {
      const run = (await stack.api('GET', `/v1/runs/${runId}`)).body as Run;
      return ['succeeded', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
    },
    timeoutMs,
    200,
  );
}

async function actions(runId: string): Promise<Action[]> {
  return (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as Action[];
}

/** Waits until the run's event stream shows `node` started. */
async function nodeStarted(runId: string, node: string): Promise<void> {
  await waitFor(`${node} to start in ${runId}`, async () => {
    const seen = await events(runId, { timeoutMs: 300 });
    return seen.some((e) => e.event_type === 'node_started' && (e.payload as { node: string }).node === node);
  });
}

/**
 * An agent whose output task may take 20 s an attempt (not the suite's 6 s): a restart of output
 * that is slow on a loaded machine must not use up the 3 attempts before the restarted service answers.
 */
async function patientOutputAgent(name: string): Promise<string> {
  const agent = await stack.api('POST', '/v1/agents', { name, node_timeouts_ms: { output: 20_000 } });
  expect(agent.status).toBe(201);
  return agent.body.id as string;
}

const nodes = (list: Action[]) => list.map((a) => a.node);
const CALC_FLOW = ['start', 'intake', 'memory', 'planner', 'calculator', 'reflection', 'planner', 'output'];

describe('multi-turn threads', () => {
  it('inherits the thread state: per-turn entries, chat history, memory, increasing action ids', async () => {
    const first = await start('what is 2+3*4?');
    expect((await finished(first.run_id)).status).toBe('succeeded');
    const second = await start('what is 6*7?', { thread_id: first.thread_id });
    const done = await finished(second.run_id);
    expect(done.status).toBe('succeeded');
    expect(done.turn).toBe(1);
    expect(done.output?.answer).toContain('42');

    const turn1 = await actions(second.run_id);
    expect(nodes(turn1)).toEqual(CALC_FLOW);
    expect(turn1.map((a) => a.id)).toEqual([9, 10, 11, 12, 13, 14, 15, 16]);
    expect(turn1.find((a) => a.node === 'memory')?.result).toEqual({ found: 1 });

    const state = (await stack.api('GET', `/v1/threads/${first.thread_id}/state`)).body;
    expect(state.turn).toBe(1);
    expect(state.run_id).toBe(second.run_id);
    expect(state.prompts).toEqual(['what is 2+3*4?', 'what is 6*7?']);
    expect(state.task_goals).toEqual(['what is 2+3*4?', 'what is 6*7?']);
    expect(state.todos).toHaveLength(2);
    expect(state.action_history.map((t: Action[]) => t.length)).toEqual([8, 8]);
    expect(state.usage).toHaveLength(2);
    expect(state.chat_history.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(state.memory).toEqual([expect.objectContaining({ turn: 0, thread_id: first.thread_id })]);

    const thread = (await stack.api('GET', `/v1/threads/${first.thread_id}`)).body;
    expect(thread).toMatchObject({ turns: 2, active_run_id: null, version: 16 });
    const runs = (await stack.api('GET', `/v1/threads/${first.thread_id}/runs`)).body.runs as Run[];
    expect(runs.map((r) => r.run_id)).toEqual([first.run_id, second.run_id]);
  });
});

describe('multitask', () => {
  it('reject answers 409 thread_busy; enqueue starts after the active run; interrupt cancels it', async () => {
    const a = await start('[slow] first');
    const busy = await post('second', { thread_id: a.thread_id });
    expect(busy.status).toBe(409);
    expect((busy.body as unknown as { error: { code: string } }).error.code).toBe('thread_busy');

    const b = await start('what is 1+1?', { thread_id: a.thread_id, multitask: 'enqueue' });
    expect(b.status).toBe('queued');
    const [doneA, doneB] = [await finished(a.run_id), await finished(b.run_id)];
    expect(doneA.status).toBe('succeeded');
    expect(doneB.status).toBe('succeeded');
    expect(doneB.turn).toBe(1);
    expect(Date.parse(doneB.started_at!)).toBeGreaterThanOrEqual(Date.parse(doneA.finished_at!));

    const c = await start('[very-slow] third');
    await nodeStarted(c.run_id, 'planner');
    const d = await start('what is 2+2?', { thread_id: c.thread_id, multitask: 'interrupt' });
    expect((await finished(c.run_id)).status).toBe('cancelled');
    const doneD = await finished(d.run_id);
    expect(doneD.status).toBe('succeeded');
    expect(doneD.turn).toBe(1);
    expect(nodes(await actions(c.run_id))).not.toContain('output');
  });
});

describe('fenced cancel', () => {
  it('aborts the in-flight LLM call within 1 s, ends cancelled, and no action follows', async () => {
    const startedAt = Date.now();
    const run = await start('[very-slow] cancel me');
    await nodeStarted(run.run_id, 'planner');
    // Cancel while the planner's model request is in flight.
    await waitFor('the slow model request to be in flight', async () => {
      const requests = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as {
        at: string;
        rule: string | null;
        status?: number;
      }[];
      return requests.some(
        (r) => r.rule === 'planner-very-slow' && Date.parse(r.at) >= startedAt - 50 && r.status === undefined,
      );
    });
    const cancelledAt = Date.now();
    const res = await stack.api('POST', `/v1/runs/${run.run_id}/cancel`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ run_id: run.run_id, status: 'cancelling' });
    expect((await finished(run.run_id)).status).toBe('cancelled');

    // The abort reaches the model server just after the run is marked cancelled.
    const abortedAt = await waitFor(
      'the model server to see the request aborted',
      async () => {
        const requests = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as {
          at: string;
          rule: string | null;
          aborted: boolean;
          aborted_after_ms?: number;
        }[];
        const times = requests
          .filter((r) => r.rule === 'planner-very-slow' && r.aborted)
          .map((r) => Date.parse(r.at) + (r.aborted_after_ms ?? 0))
          .filter((t) => t >= cancelledAt - 50);
        return times.length > 0 ? times : undefined;
      },
      3000,
    );
    expect(Math.min(...abortedAt) - cancelledAt).toBeLessThan(1000);

    // Wait past the slow reply: nothing more is committed.
    await new Promise((r) => setTimeout(r, 1500));
    const stream = await events(run.run_id);
    const cancelledIdx = stream.findIndex(
      (e) => e.event_type === 'status' && (e.payload as { status: string }).status === 'cancelled',
    );
    expect(cancelledIdx).toBeGreaterThan(0);
    expect(stream.slice(cancelledIdx + 1).map((e) => e.event_type)).toEqual(['done']);
    expect(nodes(await actions(run.run_id))).toEqual(['start', 'intake', 'memory']);
    // The cancelled event says who acknowledged: the planner aborted the task it held.
    const planner = stream.find(
      (e) => e.event_type === 'node_started' && (e.payload as { node: string }).node === 'planner',
    )?.payload as { task_id: string };
    const cancel = (stream[cancelledIdx].payload as { cancel?: CancelAcks }).cancel;
    expect(cancel?.pending).toEqual([{ task_id: planner.task_id, node: 'planner', service: 'planner' }]);
    expect(cancel?.complete).toBe(true);
    expect(cancel?.acknowledged_at).toEqual(expect.any(String));
    const byPlanner = cancel?.acks.filter((a) => a.service === 'planner') ?? [];
    expect(byPlanner.flatMap((a) => a.aborted)).toEqual([{ task_id: planner.task_id, node: 'planner' }]);

    const again = await stack.api('POST', `/v1/runs/${run.run_id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('cancelled');
  });

  it('a replica that missed the broadcast learns the cancel from the fence and never starts the task', async () => {
    // No planner is up: the run's first task (intake) waits in its queue, and the cancel's
    // broadcast reaches nobody who serves it.
    stack.kill('planner');
    try {
      const run = await start('what is 9*9?');
      await waitFor('intake to be dispatched', async () => {
        const rows = await stack.sql(
          `SELECT 1 FROM run_tasks WHERE run_id = $1 AND node = 'intake' AND published_at IS NOT NULL`,
          [run.run_id],
        );
        return rows.length > 0;
      });
      const res = await stack.api('POST', `/v1/runs/${run.run_id}/cancel`);
      expect(res.status).toBe(202);
      expect((await finished(run.run_id)).status).toBe('cancelled');
      const stream = await events(run.run_id);
      const cancel = (
        stream.find(
          (e) => e.event_type === 'status' && (e.payload as { status: string }).status === 'cancelled',
        )?.payload as { cancel?: CancelAcks }
      ).cancel;
      expect(cancel?.pending.map((p) => [p.node, p.service])).toEqual([['intake', 'planner']]);
      expect(cancel?.acks.filter((a) => a.service === 'planner')).toEqual([]);
      expect(cancel?.complete).toBe(false);

      // A new planner pulls the queued task: the fence, loaded before it takes tasks, stops it.
      const calls = async () =>
        ((await (await fetch(`${stack.llmUrl}/_requests`)).json()) as unknown[]).length;
      const before = await calls();
      await stack.restart('planner');
      await waitFor('the planner to skip the task', async () =>
        stack
          .log('planner')
          .split('\n')
          .some((l) => l.includes(run.run_id) && l.includes('task of a cancelled run skipped')),
      );
      expect(await calls()).toBe(before);
      expect(nodes(await actions(run.run_id))).toEqual(['start']);
    } finally {
      if (stack.pid('planner') === undefined || !isAlive(stack.pid('planner'))) {
        await stack.restart('planner');
      }
    }
  });

  it('a cancel that arrives before the run started wins; a finished run answers 409 run_finished', async () => {
    const busy = await start('[slow] keep the thread busy');
    const queued = await start('what is 5*5?', { thread_id: busy.thread_id, multitask: 'enqueue' });
    const res = await stack.api('POST', `/v1/runs/${queued.run_id}/cancel`);
    expect(res.status).toBe(202);
    expect((await finished(busy.run_id)).status).toBe('succeeded');
    const done = await finished(queued.run_id);
    expect(done.status).toBe('cancelled');
    expect(await actions(queued.run_id)).toEqual([]);
    expect((await events(queued.run_id)).map((e) => e.event_type)).toEqual(['status', 'status', 'done']);

    const late = await stack.api('POST', `/v1/runs/${busy.run_id}/cancel`);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('run_finished');
  });
});

describe('guards', () => {
  it('fails a looping run with max_steps_exceeded', async () => {
    const run = await start('[loop] forever');
    const done = await finished(run.run_id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('max_steps_exceeded');
    expect((await actions(run.run_id)).length).toBe(20);
  });
});

describe('the task reaper', () => {
  it('dispatches an unanswered task again (attempt 2, error event), and the run completes once a worker is back', async () => {
    // Reflection's task gets 12 s an attempt (not the suite's 6 s): on a loaded machine the
    // restarted service must still answer within the attempts left after the re-dispatch.
    const agent = await stack.api('POST', '/v1/agents', {
      name: 'patient-reflection',
      node_timeouts_ms: { reflection: REAPER_TIMEOUT_MS },
    });
    expect(agent.status).toBe(201);
    await stack.stopService('reflection');
    const run = await start('what is 3*3?', { agent_id: agent.body.id });
    const dispatches = async () =>
      Number(
        (
          await stack.sql<{ attempt: number }>(
            `SELECT attempt FROM run_tasks WHERE run_id = $1 AND node = 'reflection'`,
            [run.run_id],
          )
        )[0]?.attempt ?? 0,
      );
    await waitFor('the re-dispatch', async () => (await dispatches()) >= 2, REAPER_TIMEOUT_MS * 3, 100);
    await stack.startService('reflection');
    const done = await finished(run.run_id);
    expect(done.status).toBe('succeeded');
    const list = await actions(run.run_id);
    expect(nodes(list)).toEqual(CALC_FLOW);
    // The action says how many dispatches the task took: 2, or 3 when a slow machine let the
    // second deadline pass before the worker was back.
    const attempt = list.find((a) => a.node === 'reflection')?.attempt;
    expect(attempt).toBeGreaterThanOrEqual(2);
    expect(attempt).toBe(await dispatches());
    const err = (await events(run.run_id)).find((e) => e.event_type === 'error')!;
    expect(err.payload).toMatchObject({
      node: 'reflection',
      message: expect.stringContaining('attempt 2 of 3'),
    });
  }, 120_000);

  it('fails the run naming the node and its attempts when no worker ever answers', async () => {
    await stack.stopService('reflection');
    try {
      const run = await start('what is 4*4?');
      const done = await finished(run.run_id, TIMEOUT_MS * 5);
      expect(done.status).toBe('failed');
      expect(done.error?.code).toBe('task_timeout');
      expect(done.error?.message).toMatch(/node "reflection" did not answer task .* in 3 attempts/);
    } finally {
      await stack.startService('reflection');
    }
  }, 60_000);
});

describe('events lost with a crash', () => {
  it("writes a step's action event again when its delta is delivered again and Redis lacks it", async () => {
    const run = await start('[slow] repair me');
    await nodeStarted(run.run_id, 'planner');
    const before = await events(run.run_id, { timeoutMs: 300 });
    const memory = before.find(
      (e) => e.event_type === 'action' && (e.payload as { node: string }).node === 'memory',
    )!;
    // As if the orchestrator died after its commit, before writing the event and acking the delta.
    await stack.redis('XDEL', `sy:run:${run.run_id}:events`, memory.seq);
    const [row] = await stack.sql<{
      task_id: string;
      delta: { action: Record<string, unknown>; patch?: unknown[] };
    }>(`SELECT task_id, delta FROM state_deltas WHERE run_id = $1 AND node = 'memory'`, [run.run_id]);
    const { id: _id, ...action } = row.delta.action;
    const nc = await connect({ servers: stack.natsUrl });
    try {
      await nc.jetstream().publish(
        'sy.delta.retrieval',
        new TextEncoder().encode(
          JSON.stringify({
            task_id: row.task_id,
            run_id: run.run_id,
            node: 'memory',
            base_version: 2,
            delta: { ...row.delta, action },
          }),
        ),
        { msgID: `redelivered-${row.task_id}` },
      );
    } finally {
      await nc.close();
    }
    expect((await finished(run.run_id)).status).toBe('succeeded');
    const after = await events(run.run_id);
    const actionIds = after
      .filter((e) => e.event_type === 'action')
      .map((e) => (e.payload as { id: number }).id);
    expect(actionIds.filter((id) => id === (memory.payload as { id: number }).id)).toHaveLength(1);
    expect([...actionIds].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('crashes', () => {
  async function assertAllSucceeded(runs: Run[]): Promise<void> {
    const done = await Promise.all(runs.map((r) => finished(r.run_id, 120_000)));
    expect(done.map((d) => d.status)).toEqual(runs.map(() => 'succeeded'));
    for (const r of runs) {
      const list = await actions(r.run_id);
      expect(nodes(list)).toEqual(CALC_FLOW);
      const ids = list.map((a) => a.id);
      expect(ids).toEqual(ids.map((_, i) => ids[0] + i));
    }
    // No task's delta applied twice, no step applied without all its deltas.
    const dup = await stack.sql(
      `SELECT run_id, node, count(*) FROM run_tasks WHERE run_id = ANY($1::uuid[]) AND status <> 'applied'
       GROUP BY run_id, node`,
      [runs.map((r) => r.run_id)],
    );
    expect(dup).toEqual([]);
    const perRun = await stack.sql<{ n: string }>(
      `SELECT count(*) AS n FROM state_deltas WHERE run_id = ANY($1::uuid[]) GROUP BY run_id`,
      [runs.map((r) => r.run_id)],
    );
    expect(perRun.map((r) => Number(r.n))).toEqual(runs.map(() => 8));
  }

  const prompts = (n: number) => Array.from({ length: n }, (_, i) => `what is ${i + 2}*${i + 3}?`);

  it('20 concurrent runs survive kill -9 of the orchestrator, twice', async () => {
    const runs = await Promise.all(prompts(20).map((p) => start(p)));
    await new Promise((r) => setTimeout(r, 300));
    stack.kill('run-orchestrator');
    await stack.restart('run-orchestrator');
    await new Promise((r) => setTimeout(r, 500));
    stack.kill('run-orchestrator');
    await stack.restart('run-orchestrator');
    await assertAllSucceeded(runs);
  }, 150_000);

  it.each(['planner', 'tool-executor', 'output'] as const)(
    'runs survive kill -9 of %s',
    async (app) => {
      const runs = await Promise.all(prompts(6).map((p) => start(p)));
      await new Promise((r) => setTimeout(r, 200));
      stack.kill(app);
      await stack.restart(app);
      await assertAllSucceeded(runs);
    },
    150_000,
  );

  it('a run survives kill -9 of output mid-stream, and the answer is whole', async () => {
    const run = await start('[slow-output] count', { agent_id: await patientOutputAgent('patient-output') });
    await waitFor('the first token', async () =>
      (await events(run.run_id, { timeoutMs: 300 })).some((e) => e.event_type === 'token'),
    );
    stack.kill('output');
    await stack.restart('output');
    const done = await finished(run.run_id);
    expect(done.status).toBe('succeeded');
    expect(done.output?.answer).toBe('one two three four five six seven eight nine ten eleven twelve');
  }, 60_000);

  it('a model call its node finished is billed though the node is killed before its delta goes out', async () => {
    // The output node answers (one call), then names the thread (a second call, 8 s here): its
    // delta carries its calls, but the answer's call may not wait for it that long — the node
    // service writes it itself (TaskCalls), so kill -9 during the title call loses nothing.
    const run = await start('[slow-title] what is 2+3*4?', {
      agent_id: await patientOutputAgent('patient-title'),
    });
    const outputCalls = () =>
      stack.sql<{ attempt: number; total_tokens: number }>(
        `SELECT attempt, total_tokens FROM model_usage WHERE run_id = $1 AND node = 'output' ORDER BY id`,
        [run.run_id],
      );
    await waitFor('the answer call billed while the title call is under way', async () =>
      (await outputCalls()).length > 0 ? true : undefined,
    );
    stack.kill('output');
    await stack.restart('output');
    const done = await finished(run.run_id);
    expect(done.status).toBe('succeeded');
    // The killed attempt's answer (30 tokens), then the retry's answer and title (13) — each once.
    expect(await outputCalls()).toEqual([
      { attempt: 1, total_tokens: 30 },
      { attempt: 2, total_tokens: 30 },
      { attempt: 2, total_tokens: 13 },
    ]);
    const output = (await actions(run.run_id)).find((a) => a.node === 'output');
    expect(output).toMatchObject({ attempt: 2, usage: { total_tokens: 43 } });
  }, 60_000);

  it('runs complete across a NATS outage of 2 s, and no finished LLM call is made again', async () => {
    const llmCalls = async () =>
      ((await (await fetch(`${stack.llmUrl}/_requests`)).json()) as unknown[]).length;
    // What one run of this flow costs in model calls, measured on a quiet stack.
    const before = await llmCalls();
    await assertAllSucceeded([await start('what is 2+3*4?')]);
    const perRun = (await llmCalls()) - before;
    expect(perRun).toBeGreaterThan(0);

    const runs = await Promise.all(prompts(10).map((p) => start(p)));
    await new Promise((r) => setTimeout(r, 200));
    await stack.restartNats(2000);
    await assertAllSucceeded(runs);
    // Results finished while NATS was down waited for it (same message id) instead of the work
    // being done again: the ten runs made exactly ten runs' worth of calls.
    expect((await llmCalls()) - before - perRun).toBe(10 * perRun);
  }, 150_000);

  it("runs complete when Postgres terminates the services' connections mid-run", async () => {
    const runs = await Promise.all(prompts(5).map((p) => start(p)));
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 150));
      await stack.sql(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
    }
    await assertAllSucceeded(runs);
  }, 150_000);
});

function isAlive(pid: number | undefined): boolean {
  try {
    return pid !== undefined && process.kill(pid, 0);
  } catch {
    return false;
  }
}
