import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SwitchyardClient } from '@switchyard/client';
import type { RunEvent } from '@switchyard/contracts';
import { REPO_ROOT, type ServiceApp, TestStack, readSse, waitFor } from '@switchyard/testing';

// A rolling restart under load: every service is stopped with SIGTERM (it drains: stops pulling,
// finishes what it holds, acks) and started again, one after the other, while 50 runs are under
// way. Nothing may be lost or done twice, and SSE clients that reconnect by Last-Event-ID (the
// typed client) see every event once.

// The gateway first: the followed runs are under way, so their streams are cut and resumed.
const ROLL: ServiceApp[] = [
  'gateway',
  'planner',
  'tool-executor',
  'reflection',
  'retrieval',
  'output',
  'run-orchestrator',
];
const PROMPTS = ['what is 2+3*4?', '[long-answer] what is 2+3*4?'];
const NODES = ['start', 'intake', 'memory', 'planner', 'calculator', 'reflection', 'planner', 'output'];

let stack: TestStack;

beforeAll(async () => {
  // The skeleton script with every reply 800 ms slow: the runs stay under way while the roll goes
  // through the seven services (about 2 s each).
  const script = JSON.parse(
    readFileSync(join(REPO_ROOT, 'apps/gateway/test/fixtures/skeleton.script.json'), 'utf8'),
  ) as {
    rules: { reply: Record<string, unknown> }[];
  };
  for (const rule of script.rules) {
    rule.reply['delay_ms'] = 800;
  }
  const dir = mkdtempSync(join(REPO_ROOT, 'tmp', 'rolling-'));
  writeFileSync(join(dir, 'slow.script.json'), JSON.stringify(script));
  stack = await TestStack.start({ script: relative(REPO_ROOT, join(dir, 'slow.script.json')) });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const modelCalls = async () =>
  ((await (await fetch(`${stack.llmUrl}/_requests`)).json()) as unknown[]).length;

async function collect(events: AsyncIterable<RunEvent | { event_type: string }>): Promise<string[]> {
  const seqs: string[] = [];
  for await (const e of events) {
    seqs.push((e as RunEvent).seq);
  }
  return seqs;
}

it('restarts every service one after another under 50 runs: all succeed, nothing lost or done twice', async () => {
  // What one run of each prompt costs in model calls, undisturbed.
  let perRun = 0;
  for (const prompt of PROMPTS) {
    const before = await modelCalls();
    const res = await stack.api('POST', '/v1/runs', { input: { prompt } });
    expect((await stack.ended(res.body.run_id)).status).toBe('succeeded');
    perRun = (await modelCalls()) - before;
  }
  expect(perRun).toBeGreaterThan(0);

  const before = await modelCalls();
  const ids: string[] = [];
  const startRuns = async (n: number) => {
    const created = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        stack.api('POST', '/v1/runs', { input: { prompt: PROMPTS[i % 2] } }),
      ),
    );
    for (const r of created) {
      expect(r.status).toBe(202);
      ids.push(r.body.run_id as string);
    }
  };
  await startRuns(50);
  const client = new SwitchyardClient({ baseUrl: stack.gatewayUrl, apiKey: stack.key, backoffMs: 100 });
  const followed = ids.slice(0, 10).map((id) => collect(client.events(id, { maxReconnects: 50 })));

  let cutShort = 0;
  for (const service of ROLL) {
    if (service === 'gateway') {
      const rows = await stack.sql(`SELECT 1 FROM runs WHERE id = ANY($1::uuid[]) AND finished_at IS NULL`, [
        ids.slice(0, 10),
      ]);
      cutShort = rows.length;
    }
    if (service === 'planner') {
      // Stopped while it holds tasks (model calls of 800 ms): the drain has work to finish. On a
      // slow machine the gateway's restart may outlast every run's planning: then more runs come.
      await waitFor('the planner to hold tasks', async () => {
        const held = await stack.sql(
          `SELECT 1 FROM run_tasks WHERE run_id = ANY($1::uuid[]) AND subject LIKE 'sy.task.planner.%'
             AND published_at IS NOT NULL AND status = 'pending'`,
          [ids],
        );
        if (held.length > 0) {
          return true;
        }
        const under = await stack.sql(
          `SELECT 1 FROM runs WHERE id = ANY($1::uuid[]) AND finished_at IS NULL`,
          [ids],
        );
        if (under.length === 0) {
          await startRuns(10);
        }
        return false;
      });
    }
    await stack.restart(service);
  }
  // Streams were open when the gateway went (they end with a reconnectable `close`).
  expect(cutShort).toBeGreaterThan(0);

  const statuses = await Promise.all(
    ids.map(async (id) => (await stack.ended(id, 120_000)).status as string),
  );
  expect(statuses.filter((s) => s !== 'succeeded')).toEqual([]);

  // Each run applied each of its steps exactly once...
  const rows = await stack.sql<{ run_id: string; nodes: string[] }>(
    `SELECT run_id, array_agg(node ORDER BY version) AS nodes FROM state_deltas
     WHERE run_id = ANY($1::uuid[]) GROUP BY run_id`,
    [ids],
  );
  expect(rows).toHaveLength(ids.length);
  for (const r of rows) {
    expect(r.nodes).toEqual(NODES);
  }
  // ...and no finished model call was made again (a drained task is finished, not redone).
  expect((await modelCalls()) - before).toBe(ids.length * perRun);
  // The services drained (their logs say what they finished and handed back): nothing handed
  // back, and the drains finished work they held when told to stop. (Which service held a task at
  // that instant is a matter of timing — the planner's may have just answered — so the work
  // finished is counted over them all.)
  let finished = 0;
  for (const service of ROLL.filter((s) => s !== 'gateway')) {
    const drains = stack
      .log(service)
      .split('\n')
      .filter((l) => l.includes('"msg":"drained"'))
      .map((l) => JSON.parse(l) as { finished: number; handedBack: number });
    expect(drains.length).toBeGreaterThanOrEqual(1);
    expect(drains[0].handedBack).toBe(0);
    finished += drains[0].finished;
  }
  expect(finished).toBeGreaterThan(0);

  // The gateway closed its server itself (streams ended, idle connections closed), not killed.
  expect(stack.log('gateway')).toContain('"msg":"HTTP server closed"');

  // The clients that followed across the gateway's restart saw the whole log, once, in order.
  const seen = await Promise.all(followed);
  for (const [i, seqs] of seen.entries()) {
    const log = await readSse(`${stack.gatewayUrl}/v1/runs/${ids[i]}/events`, {
      headers: { Authorization: `Bearer ${stack.key}` },
      timeoutMs: 30_000,
    });
    expect(seqs).toEqual(log.frames.map((f) => f.id));
  }
}, 300_000);
