import type { Action } from '@switchyard/contracts';
import { STREAMS } from '@switchyard/contracts';
import { connect } from 'nats';
import { type NatsCluster, TestStack, postBurst, waitFor } from '@switchyard/testing';

// Production runs NATS as a three-node JetStream cluster. Here too: every stream, KV bucket and
// durable consumer of the services keeps three replicas (SWITCHYARD_NATS_REPLICAS=3), the
// services know every node, and 50 runs in flight survive a node killed (-9) and restarted, then
// the leader of the task and delta streams killed and restarted: no run lost, no step applied
// twice, no model call made again.

const RUNS = 50;
const STEPS = 8;
const CALC_FLOW = ['start', 'intake', 'memory', 'planner', 'calculator', 'reflection', 'planner', 'output'];
let stack: TestStack;
let cluster: NatsCluster;
/** Model calls one run of the flow makes, by the scripted model's rule, measured on a quiet stack. */
let perRun: Record<string, number> = {};

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/run-orchestrator/test/fixtures/nats-cluster.script.json',
    natsClusterSize: 3,
    env: { SWITCHYARD_NATS_REPLICAS: '3' },
  });
  cluster = stack.natsCluster!;
  // One run on the quiet cluster: what the flow costs in model calls.
  const run = (await stack.api('POST', '/v1/runs', { input: { prompt: 'what is 2+3*4?' } })).body.run_id;
  await assertEveryRunWhole([run]);
  perRun = await llmCalls();
  expect(Object.keys(perRun).length).toBeGreaterThan(0);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

/** Model calls made so far, counted by the scripted model's rule that answered them. */
async function llmCalls(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const r of (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as { rule: string | null }[]) {
    counts[r.rule ?? '(none)'] = (counts[r.rule ?? '(none)'] ?? 0) + 1;
  }
  return counts;
}

/** Steps applied so far across `runs`. */
async function applied(runs: string[]): Promise<number> {
  const [row] = await stack.sql<{ n: string }>(
    `SELECT count(*) AS n FROM state_deltas WHERE run_id = ANY($1::uuid[])`,
    [runs],
  );
  return Number(row.n);
}

/** Every run succeeded through the whole flow, each step applied once. */
async function assertEveryRunWhole(runs: string[]): Promise<void> {
  const done = await Promise.all(runs.map((r) => stack.ended(r, 150_000)));
  expect(done.map((d) => d.status)).toEqual(runs.map(() => 'succeeded'));
  for (const runId of runs) {
    const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as Action[];
    expect({ runId, nodes: actions.map((a) => a.node) }).toEqual({ runId, nodes: CALC_FLOW });
    const ids = actions.map((a) => a.id);
    expect(ids).toEqual(ids.map((_, i) => ids[0] + i));
  }
  const notApplied = await stack.sql(
    `SELECT run_id, node, status FROM run_tasks WHERE run_id = ANY($1::uuid[]) AND status <> 'applied'`,
    [runs],
  );
  expect(notApplied).toEqual([]);
  const perRunDeltas = await stack.sql<{ n: string; tasks: string }>(
    `SELECT count(*) AS n, count(DISTINCT task_id) AS tasks FROM state_deltas
     WHERE run_id = ANY($1::uuid[]) GROUP BY run_id`,
    [runs],
  );
  expect(perRunDeltas.map((r) => [Number(r.n), Number(r.tasks)])).toEqual(runs.map(() => [STEPS, STEPS]));
}

/** Creates `count` runs of the flow at once (a client's retries included); answers their ids. */
async function createRuns(label: string, count: number, from: number): Promise<string[]> {
  const { responses } = await postBurst(stack, {
    key: stack.key,
    count,
    label,
    inFlight: count,
    body: (i) => ({ input: { prompt: `what is ${from + i + 2}*${from + i + 3}?` } }),
  });
  expect(responses.map((r) => r.status)).toEqual(responses.map(() => 202));
  return responses.map((r) => r.body.run_id as string);
}

/**
 * 50 runs: `victim()` names the NATS node to kill (SIGKILL) — chosen, and its leaderships
 * arranged, before the runs start, so that they are still in flight however long that takes — then
 * 30 runs are created at once; a quarter of their steps in the node is killed, and the other 20 are
 * created right after, while the cluster replaces what the
 * node led. The two nodes left must carry the runs on (50 more steps applied while the node is
 * down) before it is started again on its store; then every run must be whole and the model
 * called exactly as often as 50 runs need.
 */
async function burstWithNodeKilled(label: string, victim: () => Promise<string>): Promise<string> {
  const callsBefore = await llmCalls();
  const killed = await victim();
  const first = await createRuns(`${label}-a`, 30, 0);
  await waitFor(
    'a quarter of the steps',
    async () => (await applied(first)) >= (30 * STEPS) / 4,
    120_000,
    100,
  );
  await cluster.kill(killed);
  const atKill = await applied(first);
  // Runs were still in flight.
  expect(atKill).toBeLessThan(30 * STEPS);
  const runs = [...first, ...(await createRuns(`${label}-b`, RUNS - 30, 30))];
  await waitFor(
    `${RUNS} more steps with node ${killed} down`,
    async () => (await applied(runs)) >= atKill + RUNS,
    120_000,
    200,
  );
  await cluster.startNode(killed);

  await assertEveryRunWhole(runs);
  // A call whose reply was in hand when its node's NATS went away is not made again: its delta
  // waited (same message id) for the stream's new leader.
  const calls = await llmCalls();
  const made = Object.fromEntries(Object.entries(calls).map(([r, n]) => [r, n - (callsBefore[r] ?? 0)]));
  expect(made).toEqual(Object.fromEntries(Object.entries(perRun).map(([r, n]) => [r, n * RUNS])));
  return killed;
}

it('keeps three replicas of every stream, KV bucket and consumer', async () => {
  const nc = await connect({ servers: stack.natsUrl.split(',') });
  try {
    const jsm = await nc.jetstreamManager();
    const streams = await jsm.streams.list().next();
    expect(streams.map((s) => s.config.name).sort()).toEqual(
      expect.arrayContaining([STREAMS.runs.name, STREAMS.tasks.name, STREAMS.deltas.name, 'KV_sy_nodes']),
    );
    for (const s of streams) {
      expect({ stream: s.config.name, replicas: s.config.num_replicas }).toEqual({
        stream: s.config.name,
        replicas: 3,
      });
      expect(s.cluster?.replicas).toHaveLength(2);
      const consumers = await jsm.consumers.list(s.config.name).next();
      // A durable consumer inherits its stream's replicas: a leader and two followers. (The KV
      // watchers' ordered consumers are ephemeral, one replica by design: made again at need.)
      for (const c of consumers.filter((c) => c.config.durable_name)) {
        expect({ consumer: c.name, followers: c.cluster?.replicas?.length }).toEqual({
          consumer: c.name,
          followers: 2,
        });
      }
    }
    const durables = await jsm.consumers.list(STREAMS.tasks.name).next();
    expect(durables.filter((c) => c.config.durable_name).length).toBeGreaterThanOrEqual(5);
  } finally {
    await nc.close();
  }
});

it('50 runs in flight survive a NATS node killed and restarted', async () => {
  // A node that leads none of the task and delta streams, if there is one: the leader is next.
  await burstWithNodeKilled('follower', async () => {
    const leaders = [await cluster.leaderOf(STREAMS.tasks.name), await cluster.leaderOf(STREAMS.deltas.name)];
    return cluster.names.find((n) => !leaders.includes(n)) ?? cluster.names[0];
  });
}, 300_000);

it('50 runs in flight survive the leader of the run, task and delta streams killed and restarted', async () => {
  const killed = await burstWithNodeKilled('leader', async () => {
    // One node leads all three streams: killing it takes every leader the runs depend on.
    const leader = await cluster.leaderOf(STREAMS.tasks.name);
    await cluster.moveLeader(STREAMS.deltas.name, leader);
    await cluster.moveLeader(STREAMS.runs.name, leader);
    return leader;
  });
  // The streams it led elected other leaders among the two nodes left.
  for (const s of [STREAMS.runs, STREAMS.tasks, STREAMS.deltas]) {
    expect({ stream: s.name, leader: await cluster.leaderOf(s.name) }).not.toEqual({
      stream: s.name,
      leader: killed,
    });
  }
}, 300_000);
