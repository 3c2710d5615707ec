import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { SERVICE_APPS, TestStack, type ServiceApp, waitFor } from '@switchyard/testing';

// What an operator watches, read off the real services: after a run, every service's /metrics
// answers the dashboard's and the alerts' questions (consumer lag, runs by status, outbox, LLM
// calls, tokens, SSE subscribers), and every metric deploy/observability names is one a service
// really exports — so a renamed metric cannot leave a dashboard panel silently empty.

const ROOT = join(__dirname, '../../..');
let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({ script: 'apps/gateway/test/fixtures/skeleton.script.json' });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One service's /metrics: the metric families it declares and the samples it shows. */
async function scrape(app: ServiceApp): Promise<{ families: Set<string>; samples: Sample[] }> {
  const text = await (await fetch(`http://127.0.0.1:${stack.ports.get(app)}/metrics`)).text();
  const families = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      const [, name, kind] = type;
      families.add(name);
      if (kind === 'histogram') {
        ['_bucket', '_sum', '_count'].forEach((s) => families.add(name + s));
      }
      continue;
    }
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (sample) {
      const labels = Object.fromEntries(
        [...(sample[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
      );
      samples.push({ name: sample[1], labels, value: Number(sample[3]) });
    }
  }
  return { families, samples };
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

describe('metrics an operator reads', () => {
  it('answers the dashboard: lag per consumer, runs by status, outbox, LLM calls and tokens, SSE subscribers', async () => {
    const done = await stack.api('POST', '/v1/runs', { input: { prompt: 'what is 2+3*4?' } });
    const doneId = done.body.run_id as string;
    await waitFor(
      'the run to succeed',
      async () => (await stack.api('GET', `/v1/runs/${doneId}`)).body.status === 'succeeded',
    );
    // A run waiting for its user keeps a client's stream open.
    const waiting = await stack.api('POST', '/v1/runs', { input: { prompt: '[ask] greet me' } });
    const waitingId = waiting.body.run_id as string;
    await waitFor(
      'the run to wait',
      async () => (await stack.api('GET', `/v1/runs/${waitingId}`)).body.status === 'waiting',
    );
    const follower = new AbortController();
    const stream = await fetch(`${stack.gatewayUrl}/v1/runs/${waitingId}/events`, {
      headers: { Authorization: `Bearer ${stack.key}` },
      signal: follower.signal,
    });
    expect(stream.status).toBe(200);
    try {
      const gateway = await scrape('gateway');
      expect(value(gateway.samples, 'switchyard_sse_subscribers', { format: 'switchyard' })).toBe(1);

      const orchestrator = await scrape('run-orchestrator');
      expect(value(orchestrator.samples, 'switchyard_runs_active', { status: 'waiting' })).toBe(1);
      expect(value(orchestrator.samples, 'switchyard_runs_active', { status: 'running' })).toBe(0);
      expect(value(orchestrator.samples, 'switchyard_runs_ended_total', { status: 'succeeded' })).toBe(1);
      expect(value(orchestrator.samples, 'switchyard_outbox_backlog', { measure: 'tasks' })).toBe(0);
      for (const consumer of ['orchestrator-runs', 'orchestrator-deltas']) {
        expect(value(orchestrator.samples, 'switchyard_consumer_pending_messages', { consumer })).toBe(0);
      }
      expect(value(orchestrator.samples, 'switchyard_consumer_info_failures')).toBe(0);
      // The two runs' threads are in the orchestrator's state cache, weighed, none too heavy.
      expect(
        value(orchestrator.samples, 'switchyard_state_cache', { measure: 'threads' }),
      ).toBeGreaterThanOrEqual(2);
      expect(value(orchestrator.samples, 'switchyard_state_cache', { measure: 'bytes' })).toBeGreaterThan(
        1000,
      );
      expect(value(orchestrator.samples, 'switchyard_state_cache', { measure: 'oversized' })).toBe(0);
      expect(
        value(orchestrator.samples, 'switchyard_state_cache_lookups_total', { outcome: 'hit' }),
      ).toBeGreaterThan(0);

      let calls = 0;
      let tokens = 0;
      for (const app of ['planner', 'tool-executor', 'reflection', 'retrieval', 'output'] as const) {
        const { samples } = await scrape(app);
        expect(
          value(samples, 'switchyard_consumer_pending_messages', {
            stream: 'SY_TASKS',
            consumer: `svc-${app}`,
          }),
        ).toBe(0);
        expect(value(samples, 'switchyard_state_cache', { measure: 'oversized' })).toBe(0);
        calls += samples
          .filter((s) => s.name === 'switchyard_llm_calls_total' && s.labels['outcome'] === 'ok')
          .reduce((a, s) => a + s.value, 0);
        tokens += samples
          .filter((s) => s.name === 'switchyard_llm_tokens_total')
          .reduce((a, s) => a + s.value, 0);
      }
      expect(calls).toBeGreaterThanOrEqual(3);
      expect(tokens).toBeGreaterThan(0);
    } finally {
      follower.abort();
    }
    await waitFor(
      'the stream to be counted out',
      async () =>
        value((await scrape('gateway')).samples, 'switchyard_sse_subscribers', { format: 'switchyard' }) ===
        0,
    );
  });

  it('names in the dashboard and the alert rules only metrics the services export', async () => {
    const exported = new Set<string>();
    for (const app of SERVICE_APPS) {
      (await scrape(app)).families.forEach((f) => exported.add(f));
    }
    const dashboard = JSON.parse(
      readFileSync(join(ROOT, 'deploy/observability/grafana-dashboard.json'), 'utf8'),
    ) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const rules = load(readFileSync(join(ROOT, 'deploy/observability/prometheus-rules.yaml'), 'utf8')) as {
      groups: { rules: { alert: string; expr: string }[] }[];
    };
    const queries = [
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => [p.title, t.expr])),
      ...rules.groups.flatMap((g) => g.rules.map((r) => [r.alert, r.expr])),
    ];
    expect(queries.length).toBeGreaterThan(10);
    const unknown = queries.flatMap(([where, expr]) =>
      [...expr.matchAll(/\bswitchyard_\w+/g)]
        .map((m) => m[0])
        .filter((n) => !exported.has(n))
        .map((n) => `${where}: ${n}`),
    );
    expect(unknown).toEqual([]);
  });
});
