// Fairness benchmark (#30 "Fair under load"): tenants sharing one real stack. Tenant B's single run
// alone and during tenant A's burst of runs; A's burst alone; two busy tenants with weights 3 and 1.
// Each with fair dispatch on (the default) and off (SWITCHYARD_FAIR_PREFETCH=0: a node service pulls
// only for its free slots, first in first out). Every model call of the scripted model server takes
// 300 ms (tools/bench/fixtures/fairness.script.json). Prints a markdown table and writes
// tools/bench/FAIRNESS-RESULTS.md.
// Usage: node tools/scripts/build.mjs && node dist/tools/bench/src/fairness.bench.js
// Environment: BENCH_BURST (500: A's burst), BENCH_REPS (3: B alone and A's burst alone are
// medians of this many), BENCH_WEIGHT_RUNS (100: runs each tenant of the weights row keeps under
// way), BENCH_WEIGHT_SECONDS (30: its window), BENCH_MODES (on,off), KEEP_BENCH_LOGS=1 keeps the services' logs under tmp/e2e/,
// BENCH_WEIGHTS_ONLY=1 measures the weights row alone and writes no results (for tuning).
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { postBurst, readSse, TestStack, waitFor } from '@switchyard/testing';
import { describeMachine, machine } from './machine';
import { fmtMs, markdownTable, median } from './stats';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const SCRIPT = 'tools/bench/fixtures/fairness.script.json';
const RESULTS = join(ROOT, 'tools', 'bench', 'FAIRNESS-RESULTS.md');
const ADMIN = `admin_${'f'.repeat(24)}`;
const PROMPT = 'what is 2+3*4?';
/** Burst requests in flight at a time, as fairness.e2e-spec sends them. */
const IN_FLIGHT = 100;
/** B's runs one after another during the burst. */
const SEQUENTIAL = 10;
/** Unmeasured runs of B on a fresh stack (JIT, pools, caches). */
const WARMUP = 2;
/** The weights row: how long both tenants keep their runs going before steps are counted. */
const WEIGHT_WARMUP_MS = 10_000;
const WEIGHTS = { a: 3, c: 1 };
interface Config {
  burst: number;
  reps: number;
  /** Runs each tenant of the weights row keeps under way. */
  weightRuns: number;
  /** How long the weights row counts steps. */
  weightWindowMs: number;
}

function config(): Config {
  const burst = Math.floor(Number(process.env['BENCH_BURST'] ?? 500));
  const reps = Math.floor(Number(process.env['BENCH_REPS'] ?? 3));
  const weightRuns = Math.floor(Number(process.env['BENCH_WEIGHT_RUNS'] ?? 100));
  const weightWindowMs = Number(process.env['BENCH_WEIGHT_SECONDS'] ?? 30) * 1000;
  if (!(burst >= 1) || !(reps >= 1) || !(weightRuns >= 1) || !(weightWindowMs > 0)) {
    throw new Error('BENCH_BURST, BENCH_REPS, BENCH_WEIGHT_RUNS and BENCH_WEIGHT_SECONDS must be positive');
  }
  return { burst, reps, weightRuns, weightWindowMs };
}

type Mode = 'on' | 'off';
const MODES: { mode: Mode; env: Record<string, string> }[] = [
  { mode: 'on', env: {} },
  { mode: 'off', env: { SWITCHYARD_FAIR_PREFETCH: '0' } },
];

interface Tenant {
  id: string;
  key: string;
}

/** The weights row: steps applied per tenant while both were busy. */
interface Shares {
  stepsA: number;
  stepsC: number;
  windowMs: number;
}

interface ModeResult {
  /** B's run on an otherwise idle stack. */
  aloneMs: number[];
  /** B's single run during A's burst, and how many of A's runs had ended when it ended. */
  singleMs: number;
  aEndedBeforeB: number;
  /** B's runs one after another during the same burst, and how many ended before A's last run. */
  sequentialMs: number[];
  sequentialUnderBurst: number;
  /** A's burst with no other tenant: first run created → last run ended. */
  burstAloneMs: number[];
  /** Burst requests answered 503 and sent again; runs of the mode that did not succeed. */
  retried: number;
  failed: number;
  /** The weights row (fair dispatch on only), or why it was skipped. */
  shares?: Shares | string;
}

const log = (msg: string) => process.stderr.write(`[fairness] ${msg}\n`);
const auth = (key: string) => ({ Authorization: `Bearer ${key}` });
const admin = auth(ADMIN);

/** One run of B: wall time from the POST to the end of its SSE stream (after `done`). */
async function timedRun(stack: TestStack, t: Tenant): Promise<{ runId: string; wallMs: number }> {
  const t0 = performance.now();
  const created = await stack.api('POST', '/v1/runs', { input: { prompt: PROMPT } }, auth(t.key));
  if (created.status !== 202) {
    throw new Error(`POST /v1/runs answered ${created.status}: ${JSON.stringify(created.body)}`);
  }
  const runId = created.body.run_id as string;
  await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, { headers: auth(t.key), timeoutMs: 600_000 });
  const wallMs = performance.now() - t0;
  const run = await stack.api('GET', `/v1/runs/${runId}`, undefined, auth(t.key));
  if (run.body?.status !== 'succeeded') {
    throw new Error(`run ${runId} ended ${run.body?.status}: ${JSON.stringify(run.body?.error ?? run.body)}`);
  }
  return { runId, wallMs };
}

/**
 * A tenant's burst as fairness.e2e-spec sends it (postBurst): `n` runs, a hundred requests in flight
 * at a time, each sent again with the same request_id after a 503. Answers how many were sent again.
 */
async function sendBurst(stack: TestStack, t: Tenant, n: number, label = 'burst'): Promise<number> {
  const { responses, retried } = await postBurst(stack, {
    key: t.key,
    count: n,
    label: `${label}-${t.id}`,
    inFlight: IN_FLIGHT,
    body: () => ({ input: { prompt: PROMPT } }),
  });
  const failed = responses.findIndex((r) => r.status !== 202 && r.status !== 200);
  if (failed >= 0) {
    const res = responses[failed];
    throw new Error(`burst run ${failed}: POST /v1/runs answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return retried;
}

interface Span {
  /** Epoch ms (the database's clock) of the tenant's first run created and last run ended. */
  firstMs: number;
  lastMs: number;
  /** When its last run was created. */
  lastCreatedMs: number;
  /** When half of its runs had ended: until then it still has a backlog at every node. */
  halfMs: number;
  failed: number;
}

/** Waits until all `n` runs of the tenant ended; answers their span. */
async function drained(stack: TestStack, t: Tenant, n: number): Promise<Span> {
  await waitFor(
    `${n} runs of tenant ${t.id} to end`,
    async () => {
      const [row] = await stack.sql<{ ended: number }>(
        'SELECT count(*)::int AS ended FROM runs WHERE tenant_id = $1 AND finished_at IS NOT NULL',
        [t.id],
      );
      return row.ended >= n;
    },
    Math.max(600_000, n * 2000),
    250,
  );
  const [span] = await stack.sql<Span>(
    `SELECT (extract(epoch FROM min(created_at)) * 1000)::float8 AS "firstMs",
            (extract(epoch FROM max(finished_at)) * 1000)::float8 AS "lastMs",
            (extract(epoch FROM max(created_at)) * 1000)::float8 AS "lastCreatedMs",
            (extract(epoch FROM percentile_disc(0.5) WITHIN GROUP (ORDER BY finished_at)) * 1000)::float8 AS "halfMs",
            count(*) FILTER (WHERE status <> 'succeeded')::int AS failed
     FROM runs WHERE tenant_id = $1`,
    [t.id],
  );
  return span;
}

async function patchTenant(stack: TestStack, t: Tenant, body: Record<string, unknown>) {
  return stack.api('PATCH', `/v1/admin/tenants/${t.id}`, body, admin);
}

/** A tenant that may have a whole burst active at once (the default cap is 200). */
async function burstTenant(stack: TestStack, name: string, n: number): Promise<Tenant> {
  const t = await stack.newTenant(name, ADMIN);
  const res = await patchTenant(stack, t, { max_active_runs: Math.max(1000, n) });
  if (res.status !== 200) {
    throw new Error(`PATCH max_active_runs answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return t;
}

/** Rows 1–3 on one stack: B alone, B during A's burst, A's burst alone. */
async function measure(stack: TestStack, cfg: Config, mode: Mode): Promise<ModeResult> {
  const b = await stack.newTenant(`quiet-${mode}`, ADMIN);
  for (let i = 0; i < WARMUP; i++) {
    await timedRun(stack, b);
  }
  const aloneMs: number[] = [];
  for (let i = 1; i <= cfg.reps; i++) {
    aloneMs.push((await timedRun(stack, b)).wallMs);
    log(`${mode}: B alone #${i}: ${fmtMs(aloneMs[aloneMs.length - 1])}`);
  }

  let retried = 0;
  let failed = 0;
  const burstAloneMs: number[] = [];
  for (let i = 1; i <= cfg.reps; i++) {
    const a = await burstTenant(stack, `burst-alone-${mode}-${i}`, cfg.burst);
    retried += await sendBurst(stack, a, cfg.burst);
    const span = await drained(stack, a, cfg.burst);
    failed += span.failed;
    burstAloneMs.push(span.lastMs - span.firstMs);
    log(`${mode}: A's burst of ${cfg.burst} alone #${i}: ${fmtMs(span.lastMs - span.firstMs)}`);
  }

  const a = await burstTenant(stack, `bursty-${mode}`, cfg.burst);
  retried += await sendBurst(stack, a, cfg.burst);
  log(`${mode}: A's burst of ${cfg.burst} sent; B's single run`);
  const single = await timedRun(stack, b);
  const [ordering] = await stack.sql<{ ended: number }>(
    `SELECT count(*)::int AS ended FROM runs
     WHERE tenant_id = $1 AND finished_at <= (SELECT finished_at FROM runs WHERE id = $2)`,
    [a.id, single.runId],
  );
  log(`${mode}: B's single run ${fmtMs(single.wallMs)}, A had ${ordering.ended}/${cfg.burst} ended`);
  const sequential: { runId: string; wallMs: number }[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    sequential.push(await timedRun(stack, b));
  }
  log(`${mode}: B's ${SEQUENTIAL} runs: ${sequential.map((r) => fmtMs(r.wallMs)).join(', ')}`);
  const span = await drained(stack, a, cfg.burst);
  failed += span.failed;
  const [under] = await stack.sql<{ n: number }>(
    `SELECT count(*)::int AS n FROM runs
     WHERE id = ANY($1::uuid[]) AND finished_at <= to_timestamp($2 / 1000.0)`,
    [sequential.map((r) => r.runId), span.lastMs],
  );
  return {
    aloneMs,
    singleMs: single.wallMs,
    aEndedBeforeB: ordering.ended,
    sequentialMs: sequential.map((r) => r.wallMs),
    sequentialUnderBurst: under.n,
    burstAloneMs,
    retried,
    failed,
  };
}

/**
 * Row 4: tenants A (weight 3) and C (weight 1) each keep `weightRuns` runs under way (a new run
 * posted as soon as one ends, checked every 200 ms) — both saturate every node, steadily, without
 * a burst's start and end. The steps applied per tenant are counted over `weightWindowMs` after
 * WEIGHT_WARMUP_MS; then the runs under way are left to end and every run must have succeeded.
 */
async function weighted(stack: TestStack, cfg: Config): Promise<Shares | string> {
  const tenants: Tenant[] = [];
  for (const [name, weight] of [
    ['weighted-a', WEIGHTS.a],
    ['weighted-c', WEIGHTS.c],
  ] as const) {
    const t = await burstTenant(stack, name, 100_000);
    const res = await patchTenant(stack, t, { weight });
    if (res.status !== 200) {
      const why = res.body?.error?.message ?? JSON.stringify(res.body);
      return `PATCH {"weight": ${weight}} answered ${res.status}: ${why}`;
    }
    const cap = await patchTenant(stack, t, { max_running_runs: cfg.weightRuns });
    if (cap.status !== 200) {
      throw new Error(`PATCH max_running_runs answered ${cap.status}: ${JSON.stringify(cap.body)}`);
    }
    tenants.push(t);
  }
  const [a, c] = tenants;
  const [{ now: t0 }] = await stack.sql<{ now: number }>(
    `SELECT (extract(epoch FROM now()) * 1000)::float8 AS now`,
  );
  const start = t0 + WEIGHT_WARMUP_MS;
  const end = start + cfg.weightWindowMs;
  let posted = 0;
  for (;;) {
    const counts = await stack.sql<{ tenant_id: string; open: number; now: number }>(
      `SELECT t.id AS tenant_id, (extract(epoch FROM now()) * 1000)::float8 AS now,
              (SELECT count(*)::int FROM runs r WHERE r.tenant_id = t.id AND r.finished_at IS NULL) AS open
       FROM tenants t WHERE t.id = ANY($1::uuid[])`,
      [[a.id, c.id]],
    );
    if (counts[0].now >= end) {
      break;
    }
    await Promise.all(
      tenants.map(async (t) => {
        const open = counts.find((r) => r.tenant_id === t.id)?.open ?? 0;
        const missing = cfg.weightRuns - open;
        if (missing > 0) {
          await sendBurst(stack, t, missing, `keep-${posted}`);
          posted += missing;
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
  }
  const rows = await stack.sql<{ tenant_id: string; steps: number }>(
    `SELECT r.tenant_id, count(*)::int AS steps FROM state_deltas d JOIN runs r ON r.id = d.run_id
     WHERE r.tenant_id = ANY($1::uuid[])
       AND d.created_at BETWEEN to_timestamp($2 / 1000.0) AND to_timestamp($3 / 1000.0)
     GROUP BY r.tenant_id`,
    [[a.id, c.id], start, end],
  );
  if (process.env['BENCH_WEIGHTS_ONLY']) {
    const byNode = await stack.sql<{ tenant_id: string; node: string; steps: number }>(
      `SELECT r.tenant_id, d.node, count(*)::int AS steps FROM state_deltas d JOIN runs r ON r.id = d.run_id
       WHERE r.tenant_id = ANY($1::uuid[])
         AND d.created_at BETWEEN to_timestamp($2 / 1000.0) AND to_timestamp($3 / 1000.0)
       GROUP BY r.tenant_id, d.node ORDER BY 2, 1`,
      [[a.id, c.id], start, end],
    );
    log(byNode.map((r) => `${r.tenant_id === a.id ? 'A' : 'C'} ${r.node} ${r.steps}`).join('; '));
  }
  const [sa, sc] = await Promise.all([
    drained(stack, a, await total(stack, a)),
    drained(stack, c, await total(stack, c)),
  ]);
  if (sa.failed + sc.failed) {
    throw new Error(`weights: ${sa.failed + sc.failed} runs did not succeed`);
  }
  const steps = (t: Tenant) => rows.find((r) => r.tenant_id === t.id)?.steps ?? 0;
  return { stepsA: steps(a), stepsC: steps(c), windowMs: end - start };
}

async function total(stack: TestStack, t: Tenant): Promise<number> {
  const [row] = await stack.sql<{ n: number }>('SELECT count(*)::int AS n FROM runs WHERE tenant_id = $1', [
    t.id,
  ]);
  return row.n;
}

const times = (v: number, base: number) => (Number.isFinite(v / base) ? `×${(v / base).toFixed(2)}` : 'n/a');
const met = (ok: boolean) => (ok ? 'yes' : 'no');

function table(cfg: Config, results: Map<Mode, ModeResult>): string {
  const rows: string[][] = [];
  /** A row: the value in each mode, the target, and whether each mode meets it. */
  const row = (
    metric: string,
    cell: (r: ModeResult) => string,
    target = '—',
    ok?: (r: ModeResult, mode: Mode) => boolean | undefined,
  ) => {
    const cells = MODES.map(({ mode }) => results.get(mode)).map((r) => (r ? cell(r) : '—'));
    const verdicts = MODES.map(({ mode }) => {
      const r = results.get(mode);
      const v = r && ok ? ok(r, mode) : undefined;
      return v === undefined ? '—' : met(v);
    });
    rows.push([metric, ...cells, target, ok ? verdicts.join(' / ') : '']);
  };
  const alone = (r: ModeResult) => median(r.aloneMs);
  const p99 = (r: ModeResult) => Math.max(...r.sequentialMs);
  const n = cfg.burst;
  row(`1. B alone: run wall time, POST → ended (median of ${cfg.reps})`, (r) => fmtMs(alone(r)));
  row(
    `2. B's single run during A's burst of ${n}`,
    (r) => `${fmtMs(r.singleMs)} (${times(r.singleMs, alone(r))})`,
    '≤ max(2× alone, alone + 1 s)',
    (r) => r.singleMs <= Math.max(2 * alone(r), alone(r) + 1000),
  );
  row(`… A's runs ended when B's run ended`, (r) => `${r.aEndedBeforeB} / ${n}`);
  row(
    `… B's ${SEQUENTIAL} runs one after another: median`,
    (r) => `${fmtMs(median(r.sequentialMs))} (${times(median(r.sequentialMs), alone(r))})`,
  );
  row(
    `… B's ${SEQUENTIAL} runs: p99 (max of ${SEQUENTIAL})`,
    (r) => `${fmtMs(p99(r))} (${times(p99(r), alone(r))})`,
    '≤ 3× alone',
    (r) => p99(r) <= 3 * alone(r),
  );
  row(`… of them ended before A's last run did`, (r) => `${r.sequentialUnderBurst} / ${SEQUENTIAL}`);
  const burstOff = median(results.get('off')?.burstAloneMs ?? []);
  row(
    `3. A's burst of ${n} alone: first created → last ended (median of ${cfg.reps})`,
    (r) => `${fmtMs(median(r.burstAloneMs))} (${times(median(r.burstAloneMs), burstOff)} of off)`,
    'on ≤ 1.1× off',
    (r, mode) => (mode === 'on' ? median(r.burstAloneMs) <= 1.1 * burstOff : undefined),
  );
  const shares = results.get('on')?.shares;
  if (typeof shares === 'string') {
    row(`4. Weights ${WEIGHTS.a} : ${WEIGHTS.c}: skipped`, (r) => (r.shares ? shares : '—'));
  } else if (shares) {
    const ratio = shares.stepsA / shares.stepsC;
    const want = WEIGHTS.a / WEIGHTS.c;
    row(
      `4. Weights ${WEIGHTS.a} : ${WEIGHTS.c}, ${cfg.weightRuns} runs each under way: steps A : C`,
      (r) => (r.shares ? `${Number.isFinite(ratio) ? ratio.toFixed(2) : 'n/a'} : 1` : '—'),
      `${want} : 1 ± 15 %`,
      (r) => (r.shares ? Math.abs(ratio / want - 1) <= 0.15 : undefined),
    );
    row(`… steps counted (A + C), window`, (r) =>
      r.shares ? `${shares.stepsA} + ${shares.stepsC}, ${fmtMs(shares.windowMs)}` : '—',
    );
  }
  row(`Burst requests sent again after a 503; runs that did not succeed`, (r) => `${r.retried}; ${r.failed}`);
  return markdownTable(['metric', 'fair dispatch on', 'fair dispatch off', 'target', 'met (on / off)'], rows);
}

function notes(cfg: Config): string {
  return [
    `Each mode on a stack of its own (TestStack: nats-server, redis-server, a fresh database, the seven`,
    `services from dist/ with LOG_LEVEL=warn, the scripted model server with`,
    `tools/bench/fixtures/fairness.script.json: every model call waits 300 ms before its first byte). "off"`,
    `starts the services with SWITCHYARD_FAIR_PREFETCH=0 (a node service pulls only for its free slots, first`,
    `in first out); "on" leaves it unset. Every run is the default agent on \`${PROMPT}\` on a new thread`,
    `(intake, memory, planner → calculator → reflection → planner, output). A's burst: ${cfg.burst} runs sent`,
    `as fairness.e2e-spec sends them, ${IN_FLIGHT} requests in flight at a time, a 503 sent again with the same`,
    `request_id after 1 s; A's max_active_runs raised to hold it, its running cap the default (64).`,
    '',
    `- B's times: from POST /v1/runs to the end of the run's SSE stream, measured by the client; "alone"`,
    `  after ${WARMUP} unmeasured runs. B's single run is posted once all of A's burst was accepted, its`,
    `  ${SEQUENTIAL} runs right after it; "ended when B's run ended": A's runs whose finished_at ≤ B's.`,
    `- A's burst alone: another tenant's burst with nothing else running, from its first run's created_at`,
    `  to its last run's finished_at.`,
    `- Weights (fair dispatch on only): tenants A (weight ${WEIGHTS.a}) and C (weight ${WEIGHTS.c}) each keep`,
    `  ${cfg.weightRuns} runs under way (max_running_runs ${cfg.weightRuns}; a new run posted as soon as one ends,`,
    '  checked every 200 ms), so both have tasks waiting at every node all along; counted: the state_deltas',
    `  rows (applied steps) of each tenant's runs written during ${cfg.weightWindowMs / 1000} s, from`,
    `  ${WEIGHT_WARMUP_MS / 1000} s after the two began; afterwards every run must end succeeded.`,
  ].join('\n');
}

function commit(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return '?';
  }
}

async function main(): Promise<void> {
  const cfg = config();
  const m = machine();
  const loadBefore = loadavg()[0];
  log(`machine: ${describeMachine(m)}; load average ${loadBefore.toFixed(2)}`);
  const results = new Map<Mode, ModeResult>();
  let postgres = '?';
  let stack: TestStack | undefined;
  const stop = async () => {
    const s = stack;
    stack = undefined;
    await s?.stop();
    if (s && !process.env['KEEP_BENCH_LOGS']) {
      rmSync(s.dir, { recursive: true, force: true });
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: cleaning up`);
    void stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const t0 = performance.now();
  try {
    // BENCH_MODES=on (or off) measures one mode only, e.g. while tuning it.
    const only = process.env['BENCH_MODES'];
    for (const { mode, env } of MODES.filter((m) => !only || only.split(',').includes(m.mode))) {
      log(`fair dispatch ${mode}: starting a stack`);
      stack = await TestStack.start({
        script: SCRIPT,
        env: { SWITCHYARD_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', ...env },
      });
      postgres =
        (await stack.sql<{ server_version: string }>('SHOW server_version'))[0]?.server_version ?? '?';
      if (process.env['BENCH_WEIGHTS_ONLY']) {
        // Tuning the weights row: measure it alone and write no results.
        log(`weights: ${JSON.stringify(await weighted(stack, cfg))}`);
        await stop();
        continue;
      }
      const r = await measure(stack, cfg, mode);
      if (mode === 'on') {
        r.shares = await weighted(stack, cfg);
        log(`weights: ${typeof r.shares === 'string' ? r.shares : JSON.stringify(r.shares)}`);
      }
      results.set(mode, r);
      await stop();
    }
  } finally {
    await stop();
  }
  log(`done in ${fmtMs(performance.now() - t0)}`);
  if (process.env['BENCH_WEIGHTS_ONLY']) {
    return;
  }

  const machineLine = describeMachine(m, [
    `PostgreSQL ${postgres}`,
    `1-minute load average before the run ${loadBefore.toFixed(2)} (other work on the machine skews the numbers)`,
  ]);
  const date = new Date()
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  const body = [
    table(cfg, results),
    '',
    notes(cfg),
    '',
    `1-minute load average after the run: ${loadavg()[0].toFixed(2)}.`,
  ];
  process.stdout.write(`\nMachine: ${machineLine}\n\n${body.join('\n')}\n`);
  writeFileSync(
    RESULTS,
    [
      '# Benchmark: fairness between tenants (#30)',
      '',
      `Last run: ${date}, commit ${commit()}, \`npm run bench:fairness\``,
      `(BENCH_BURST=${cfg.burst}, BENCH_REPS=${cfg.reps}, BENCH_WEIGHT_RUNS=${cfg.weightRuns}, BENCH_WEIGHT_SECONDS=${cfg.weightWindowMs / 1000}).`,
      '',
      `Machine: ${machineLine}.`,
      '',
      ...body,
      '',
    ].join('\n'),
  );
  log(`wrote ${RESULTS}`);
}

main().catch((err: Error) => {
  process.stderr.write(`bench: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
