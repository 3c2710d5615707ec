import type { Action, RuntimeState } from '@switchyard/contracts';
import { TestStack, waitFor } from '@switchyard/testing';

// Forks (time travel) on Switchyard's own API, against the whole stack as real processes: a
// branch reuses what ran before its fork point — the model server sees no request for it — and
// runs the rest again; the original history stays readable; cancel and kill -9 work on a branch.

const ADMIN = `admin_${'f'.repeat(24)}`;
let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/skeleton.script.json',
    env: { SWITCHYARD_ADMIN_TOKEN: ADMIN },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

interface LoggedRequest {
  system: string;
  messages?: { content?: unknown }[];
}

const requests = async (): Promise<LoggedRequest[]> =>
  (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as LoggedRequest[];
const kindOf = (r: LoggedRequest) => /\[switchyard:([a-z-]+)\]/.exec(r.system)?.[1] ?? '?';

const finished = (runId: string) =>
  stack.ended(runId) as Promise<{ status: string; output: { answer?: string } | null }>;

async function actions(runId: string): Promise<Action[]> {
  return (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as Action[];
}

async function runToEnd(prompt: string, threadId?: string): Promise<{ runId: string; threadId: string }> {
  const res = await stack.api('POST', '/v1/runs', {
    input: { prompt },
    ...(threadId ? { thread_id: threadId } : {}),
  });
  expect(res.status).toBe(202);
  expect((await finished(res.body.run_id)).status).toBe('succeeded');
  return { runId: res.body.run_id, threadId: res.body.thread_id };
}

describe('POST /v1/threads/:id/fork', () => {
  let original: { runId: string; threadId: string };
  let originalActions: Action[];

  let originalKinds: string[];

  beforeAll(async () => {
    const before = (await requests()).length;
    original = await runToEnd('what is 2+3*4?');
    originalKinds = (await requests()).slice(before).map(kindOf);
    originalActions = await actions(original.runId);
  }, 90_000);

  it('continues from the fork point with the edited state: nothing before it runs again', async () => {
    // start, intake, memory, planner, calculator | reflection, planner, output
    expect(originalActions.map((a) => a.node)).toEqual([
      'start',
      'intake',
      'memory',
      'planner',
      'calculator',
      'reflection',
      'planner',
      'output',
    ]);
    const before = (await requests()).length;
    const res = await stack.api('POST', `/v1/threads/${original.threadId}/fork`, {
      version: 5,
      edits: [{ op: 'replace', path: '/scenario', value: 'FORKED-SCENARIO-42' }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      thread_id: original.threadId,
      from_version: 5,
      pending: ['reflection'],
    });
    const run = await finished(res.body.run.run_id);
    expect(run.status).toBe('succeeded');
    expect(run.output?.answer).toContain('14');

    const branch = await actions(res.body.run.run_id);
    expect(branch.map((a) => a.node)).toEqual(['fork', 'reflection', 'planner', 'output']);
    expect(branch[0]).toMatchObject({ id: 9, result: { from_version: 5, edits: 1 }, next: ['reflection'] });
    // The model saw the reflection, the planner and the answer again — not intake or the plan.
    const made = (await requests()).slice(before);
    expect(originalKinds.slice(0, 3)).toEqual(['intake', 'plan', 'planner']);
    // (The thread was named by its first answer: no title request this time.)
    // (The title and the answer are asked side by side: either may reach the server first.)
    expect(originalKinds.slice(-2).sort()).toEqual(['output', 'title']);
    expect(made.map(kindOf)).toEqual(originalKinds.slice(3).filter((k) => k !== 'title'));
    expect(made.map(kindOf)).toContain('reflection');
    // The edit reached the steps after the fork point.
    expect(JSON.stringify(made.at(-1))).toContain('FORKED-SCENARIO-42');

    // The branch: the state at the fork point, edited, then the new steps.
    const state = (await stack.api('GET', `/v1/threads/${original.threadId}/state`)).body as RuntimeState;
    expect(state.version).toBe(12);
    expect(state.scenario).toBe('FORKED-SCENARIO-42');
    expect(state.action_history[0].map((a) => a.id)).toEqual([1, 2, 3, 4, 5, 9, 10, 11, 12]);
    expect(state.run_id).toBe(res.body.run.run_id);
  });

  it('stops at a breakpoint; a fork at the head without input goes on from there', async () => {
    const res = await stack.api('POST', '/v1/runs', {
      input: { prompt: 'what is 2+3*4?' },
      breakpoints: { after: ['calculator'] },
    });
    expect(res.status).toBe(202);
    const stopped = (await stack.ended(res.body.run_id)) as { status: string; output: unknown };
    expect(stopped).toMatchObject({
      status: 'succeeded',
      output: { breakpoint: { when: 'after', nodes: ['calculator'], next: ['reflection'] } },
    });
    expect((await actions(res.body.run_id)).map((a) => a.node)).toEqual([
      'start',
      'intake',
      'memory',
      'planner',
      'calculator',
    ]);
    const threadId = res.body.thread_id as string;
    const head = (await stack.api('GET', `/v1/threads/${threadId}`)).body as { version: number };
    const goOn = await stack.api('POST', `/v1/threads/${threadId}/fork`, { version: head.version });
    expect(goOn.status).toBe(201);
    expect(goOn.body.pending).toEqual(['reflection']);
    const run = await finished(goOn.body.run.run_id);
    expect(run.output?.answer).toContain('14');
    expect((await actions(goOn.body.run.run_id)).map((a) => a.node)).toEqual([
      'fork',
      'reflection',
      'planner',
      'output',
    ]);

    for (const [path, body, field] of [
      [
        '/v1/runs',
        { input: { prompt: 'x' }, breakpoints: { before: ['planner', 'nope'] } },
        'breakpoints.before[1]',
      ],
      ['/v1/runs', { input: { prompt: 'x' }, breakpoints: { at: ['planner'] } }, 'breakpoints'],
      [
        `/v1/threads/${threadId}/fork`,
        { version: 1, continue: false, breakpoints: { before: '*' } },
        'breakpoints',
      ],
    ] as const) {
      const bad = await stack.api('POST', path, body);
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain(field);
    }
  }, 90_000);

  it('keeps the original history readable: its versions, its state, its run', async () => {
    const old = (await stack.api('GET', `/v1/threads/${original.threadId}/state?version=8`))
      .body as RuntimeState;
    expect(old.action_history[0].map((a) => a.node)).toEqual(originalActions.map((a) => a.node));
    expect(old.scenario).not.toBe('FORKED-SCENARIO-42');
    expect(await actions(original.runId)).toEqual(originalActions);
    const versions = (await stack.api('GET', `/v1/threads/${original.threadId}/versions?limit=5`)).body
      .versions;
    expect(versions.map((v: { version: number }) => v.version)).toEqual([12, 11, 10, 9, 8]);
    expect(versions[3]).toMatchObject({ node: 'fork', from_version: 5 });
    expect(versions[4]).toMatchObject({ node: 'output', run_id: original.runId });
  });

  it('starts a new turn from a turn that ended, on the branch', async () => {
    // Back to the first answer (version 8, the original branch) and ask something else.
    const res = await stack.api('POST', `/v1/threads/${original.threadId}/fork`, {
      version: 8,
      input: { prompt: 'and what is 6*7?' },
    });
    expect(res.status).toBe(201);
    expect(res.body.pending).toEqual([]);
    const run = await finished(res.body.run.run_id);
    expect(run.status).toBe('succeeded');
    expect(run.output?.answer).toContain('42');
    const state = (await stack.api('GET', `/v1/threads/${original.threadId}/state`)).body as RuntimeState;
    expect(state.turn).toBe(1);
    expect(state.prompts).toEqual(['what is 2+3*4?', 'and what is 6*7?']);
    // The turn-0 scenario edit belonged to the abandoned branch.
    expect(state.scenario).not.toBe('FORKED-SCENARIO-42');
    expect(state.action_history[1].map((a) => a.node)[0]).toBe('start');
    expect(state.action_history[0].map((a) => a.id).slice(-2)).toEqual([8, 13]);
  });

  it('refuses what it cannot do with a 400 that names the field, and writes nothing', async () => {
    const t = original.threadId;
    const head = (await stack.api('GET', `/v1/threads/${t}`)).body.version as number;
    const cases: [unknown, string][] = [
      [{ version: 0 }, 'version'],
      [{ version: head + 1 }, 'version'],
      [{ version: 5, edits: [{ op: 'replace', path: '/action_history', value: [] }] }, 'edits.0.path'],
      [{ version: 5, edits: [{ op: 'replace', path: '/scenario', value: 7 }] }, 'edits'],
      [{ version: 5, edits: [{ op: 'remove', path: '/todos/9/9' }] }, 'edits'],
      [{ version: 5, input: { prompt: 'new question' } }, 'input'],
      [{ version: 5, agent_id: 'default' }, 'agent_id'],
      [{ version: 5, continue: false, input: { prompt: 'x' } }, 'continue'],
    ];
    for (const [body, field] of cases) {
      const res = await stack.api('POST', `/v1/threads/${t}/fork`, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await stack.api('GET', `/v1/threads/${t}`)).body.version).toBe(head);
    const other = await stack.newTenant('fork-other', ADMIN);
    const foreign = await stack.api(
      'POST',
      `/v1/threads/${t}/fork`,
      { version: 5 },
      { Authorization: `Bearer ${other.key}` },
    );
    expect(foreign.status).toBe(404);
  });

  it('refuses a version inside a step of parallel tasks, naming the step', async () => {
    const { runId, threadId } = await runToEnd('[fanout] compute 1+1 and 2+2');
    const acts = await actions(runId);
    const calcs = acts.filter((a) => a.node === 'calculator').map((a) => a.id);
    expect(calcs).toHaveLength(2);
    const res = await stack.api('POST', `/v1/threads/${threadId}/fork`, { version: calcs[0] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(`applied at versions ${calcs.join(', ')}`);
    const ok = await stack.api('POST', `/v1/threads/${threadId}/fork`, {
      version: calcs[1],
      continue: false,
    });
    expect(ok.status).toBe(201);
    expect((await finished(ok.body.run.run_id)).status).toBe('succeeded');
    const head = (await stack.api('GET', `/v1/threads/${threadId}/state`)).body as RuntimeState;
    // Only recorded: the fork version, nothing run after it.
    expect(head.action_history[0].at(-1)).toMatchObject({ node: 'fork', next: ['reflection'] });
  });

  it('cancels a branch like any run', async () => {
    const { threadId } = await runToEnd('[slow] think about it');
    const res = await stack.api('POST', `/v1/threads/${threadId}/fork`, { version: 3 });
    expect(res.body.pending).toEqual(['planner']);
    const runId = res.body.run.run_id as string;
    await waitFor(
      'the branch planner to start',
      async () =>
        (await stack.sql(`SELECT 1 FROM run_tasks WHERE run_id = $1 AND node = 'planner'`, [runId])).length >
        0,
    );
    expect((await stack.api('POST', `/v1/runs/${runId}/cancel`)).status).toBe(202);
    expect((await finished(runId)).status).toBe('cancelled');
    expect((await stack.api('GET', `/v1/threads/${threadId}`)).body.active_run_id).toBeNull();
  });

  it('survives kill -9 of the orchestrator while a branch starts: one fork version, the run ends', async () => {
    const { threadId } = await runToEnd('what is 5*5?');
    const res = await stack.api('POST', `/v1/threads/${threadId}/fork`, { version: 4 });
    expect(res.status).toBe(201);
    stack.kill('run-orchestrator');
    await stack.restart('run-orchestrator');
    const run = await finished(res.body.run.run_id);
    expect(run.status).toBe('succeeded');
    expect(run.output?.answer).toContain('25');
    const forks = await stack.sql(`SELECT version FROM state_deltas WHERE run_id = $1 AND node = 'fork'`, [
      res.body.run.run_id,
    ]);
    expect(forks).toEqual([{ version: 9 }]);
    expect((await actions(res.body.run.run_id)).map((a) => a.node)).toEqual([
      'fork',
      'calculator',
      'reflection',
      'planner',
      'output',
    ]);
  });
});
