import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '@switchyard/contracts';
import { REPO_ROOT, type ServiceApp, TestStack, readSse, waitFor } from '@switchyard/testing';

// A drain that outlives its deadline, in a process that is PID 1 (as in a container or a
// Kubernetes pod, where a signal's default action is never applied): the planner is stopped
// while its model call is in flight and the call takes far longer than the drain. The process
// must end by itself, exit 0, hand the task back at once and abort the call; the task is then
// done once more by the next planner, and only completed calls are metered.

const DRAIN_MS = 1500;
const PROMPT = 'what is 2+3*4?';

interface RequestRecord {
  id: string;
  rule: string | null;
  aborted: boolean;
  aborted_after_ms?: number;
  system?: string;
}

let stack: TestStack;

// Every service as usual, the planner inside a PID namespace of its own: it is PID 1 there.
const launch = (app: ServiceApp) => {
  const node = [process.execPath, '--enable-source-maps', join(REPO_ROOT, 'dist/apps', app, 'src/main.js')];
  return app === 'planner'
    ? { cmd: 'unshare', args: ['--pid', '--fork', '--kill-child', ...node], cwd: REPO_ROOT }
    : { cmd: node[0], args: node.slice(1), cwd: REPO_ROOT };
};

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/skeleton.script.json',
    env: { SWITCHYARD_DRAIN_TIMEOUT_MS: String(DRAIN_MS) },
    launch,
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const requests = async (): Promise<RequestRecord[]> =>
  (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as RequestRecord[];

const usageRows = async (runId: string): Promise<number> =>
  Number(
    (await stack.sql<{ n: string }>(`SELECT count(*) AS n FROM model_usage WHERE run_id = $1`, [runId]))[0].n,
  );

/** The process that is PID 1 in the planner's namespace: the child of `unshare`. */
function plannerPid1(): number {
  const unshare = stack.pid('planner');
  const children = readFileSync(`/proc/${unshare}/task/${unshare}/children`, 'utf8').trim().split(/\s+/);
  expect(children).toHaveLength(1);
  const pid = Number(children[0]);
  // NSpid: its id in the host's namespace, then in its own — where it is 1.
  const nspid = readFileSync(`/proc/${pid}/status`, 'utf8')
    .match(/^NSpid:\s+(.*)$/m)?.[1]
    .split(/\s+/);
  expect(nspid?.at(-1)).toBe('1');
  return pid;
}

it('a planner that is PID 1 ends its overrunning drain by itself: exit 0, the task done once more', async () => {
  // One run undisturbed: the calls a run makes, and the rule that answers the planner's first.
  const seen = (await requests()).length;
  const base = await stack.api('POST', '/v1/runs', { input: { prompt: PROMPT } });
  expect((await stack.ended(base.body.run_id)).status).toBe('succeeded');
  const baseline = (await requests()).slice(seen);
  const perRun = baseline.length;
  expect(await usageRows(base.body.run_id)).toBe(perRun);
  // The planner's first call ([switchyard:plan] or [switchyard:planner], whichever it makes first).
  const plannerCall = baseline.find((r) => r.system?.includes('[switchyard:plan'));
  expect(plannerCall?.rule).toEqual(expect.any(String));

  // That rule once more in front, answering only once and two minutes late: far past the drain.
  const script = JSON.parse(
    readFileSync(join(REPO_ROOT, 'apps/gateway/test/fixtures/skeleton.script.json'), 'utf8'),
  ) as { rules: { name: string; times?: number; reply: Record<string, unknown> }[] };
  const rule = script.rules.find((r) => r.name === plannerCall?.rule);
  expect(rule).toBeDefined();
  script.rules.unshift({ ...structuredClone(rule!), name: 'slow-planner', times: 1 });
  script.rules[0].reply['delay_ms'] = 120_000;
  await stack.putScript(script);

  const before = (await requests()).length;
  const res = await stack.api('POST', '/v1/runs', { input: { prompt: PROMPT } });
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  await waitFor('the slow planner call to be in flight', async () =>
    (await requests()).some((r) => r.rule === 'slow-planner'),
  );

  // SIGTERM to PID 1 itself (unshare does not pass signals on).
  const pid = plannerPid1();
  process.kill(pid, 'SIGTERM');
  const exit = await stack.exited('planner');
  // Exited by itself with 0 — not killed, and not waiting for the model's reply.
  expect(exit).toEqual({ code: 0, signal: null });
  const log = stack.log('planner');
  expect(log).toContain('"handedBack":1');
  expect(log).toContain('work aborted: handed back as the service shuts down');
  expect(log).not.toContain('delta not published');
  const slow = (await requests()).find((r) => r.rule === 'slow-planner');
  // Cut by the drain, long before the reply was due (or the client's own timeout gave up on it).
  expect(slow?.aborted).toBe(true);
  expect(slow?.aborted_after_ms).toBeLessThan(30_000);

  // The next planner takes the task handed back and the run completes.
  await stack.startService('planner');
  const done = await stack.ended(runId, 90_000);
  expect(done.status).toBe('succeeded');
  expect(done.output?.answer).toContain('14');

  // The interrupted call was made once more, not twice more; only completed calls are metered.
  const calls = (await requests()).slice(before);
  expect(calls.filter((r) => r.aborted)).toHaveLength(1);
  expect(calls).toHaveLength(perRun + 1);
  expect(await usageRows(runId)).toBe(perRun);

  // The planner's task: delivered twice (the hand-back, then the new planner), applied once.
  const read = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
    headers: { Authorization: `Bearer ${stack.key}` },
  });
  const started = read.frames
    .map((f) => JSON.parse(f.data) as RunEvent)
    .filter((e) => e.event_type === 'node_started' && (e.payload as { node: string }).node === 'planner');
  const plannerTasks = await stack.sql<{ status: string }>(
    `SELECT status FROM run_tasks WHERE run_id = $1 AND node = 'planner'`,
    [runId],
  );
  expect(plannerTasks.map((t) => t.status)).toEqual(['applied', 'applied']);
  expect(started).toHaveLength(plannerTasks.length + 1);
}, 180_000);
