// Inline pure nodes (#29): a graph agent whose body is pure components — a Loop of 100 turns of
// VariableAssigner → StringTransform → Switch → StringTransform (libs/testing pureLoopCanvas) — run
// with inline execution on (the default: the orchestrator runs them in the step's transaction) and
// off (SWITCHYARD_INLINE_NODES=off: every component a JetStream round trip to the planner).
// Prints a markdown table and writes tools/bench/INLINE-RESULTS.md.
// Usage: npm run bench:inline. Environment: BENCH_TURNS (100), BENCH_REPS (5: runs per mode,
// medians), KEEP_BENCH_LOGS=1, BENCH_CPU_PROF=<dir> (V8 profiles of the services, per mode),
// BENCH_ONLY_ON=1 (inline on only, no results file: for profiling), BENCH_WARMUP_RUNS (3: unmeasured
// runs per mode first).
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TestStack, pureLoopCanvas, readSse } from '@switchyard/testing';
import { describeMachine, machine } from './machine';
import { CpuMeter } from './proc';
import { writeResultsFile } from './results-file';
import { fmtMs, markdownTable, median } from './stats';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const RESULTS = join(ROOT, 'tools', 'bench', 'INLINE-RESULTS.md');
const TARGET_SPEEDUP = 10;
/**
 * Unmeasured runs per mode (~500 components each) before the measured ones: both modes are measured
 * in their steady state, every process compiled (one run left V8 optimising the step path).
 */
const WARMUP_RUNS = Math.floor(Number(process.env['BENCH_WARMUP_RUNS'] ?? 3));
const log = (msg: string) => process.stderr.write(`[bench:inline] ${msg}\n`);

interface Sample {
  wallMs: number;
  /** Graph components the run ran (its `graph.*` actions). */
  components: number;
  cpuMs: number;
}

async function measure(mode: 'on' | 'off', turns: number, reps: number): Promise<Sample[]> {
  const prof = process.env['BENCH_CPU_PROF'];
  const stack = await TestStack.start({
    script: 'apps/planner/test/fixtures/graph.script.json',
    nodeArgs: prof ? ['--cpu-prof', `--cpu-prof-dir=${resolve(prof, mode)}`] : [],
    env: { LOG_LEVEL: 'warn', SWITCHYARD_INLINE_NODES: mode, SWITCHYARD_DEFAULT_MAX_STEPS: '10000' },
  });
  try {
    const agent = await stack.api('POST', '/v1/agents', {
      name: 'pure-loop',
      kind: 'graph',
      dsl: pureLoopCanvas(turns),
      max_steps: 10_000,
    });
    if (agent.status !== 201) {
      throw new Error(`POST /v1/agents answered ${agent.status}: ${JSON.stringify(agent.body)}`);
    }
    const names = new Map<number, string>();
    for (const name of ['gateway', 'run-orchestrator', 'planner', 'nats', 'redis'] as const) {
      const pid = stack.pid(name);
      if (pid) {
        names.set(pid, name);
      }
    }
    const cpu = new CpuMeter(async () => {
      const backends = await stack.sql<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      return [...names.keys(), ...backends.map((b) => b.pid)];
    });
    const samples: Sample[] = [];
    for (let i = 0; i < WARMUP_RUNS + reps; i++) {
      await cpu.start();
      const t0 = performance.now();
      const res = await stack.api('POST', '/v1/runs', {
        agent_id: agent.body.id,
        input: { prompt: 'count' },
      });
      if (res.status !== 202) {
        throw new Error(`POST /v1/runs answered ${res.status}: ${JSON.stringify(res.body)}`);
      }
      const runId = res.body.run_id as string;
      await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
        headers: { Authorization: `Bearer ${stack.key}` },
        timeoutMs: 600_000,
      });
      const wallMs = performance.now() - t0;
      const cpuMs = await cpu.stop();
      const run = (await stack.api('GET', `/v1/runs/${runId}`)).body;
      if (run.status !== 'succeeded') {
        throw new Error(`run ${runId} ended ${run.status}: ${JSON.stringify(run.error)}`);
      }
      const [row] = await stack.sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM state_deltas WHERE run_id = $1 AND node LIKE 'graph.%'`,
        [runId],
      );
      if (i < WARMUP_RUNS) {
        continue;
      }
      samples.push({ wallMs, components: row.n, cpuMs });
      log(
        `${mode} #${i - WARMUP_RUNS + 1}: ${row.n} components in ${fmtMs(wallMs)} (${(wallMs / row.n).toFixed(2)} ms each)`,
      );
    }
    return samples;
  } finally {
    await stack.stop();
  }
}

async function main(): Promise<void> {
  const turns = Math.floor(Number(process.env['BENCH_TURNS'] ?? 100));
  const reps = Math.floor(Number(process.env['BENCH_REPS'] ?? 5));
  if (!(turns >= 1) || !(reps >= 1) || !(WARMUP_RUNS >= 0)) {
    throw new Error('BENCH_TURNS and BENCH_REPS must be positive, BENCH_WARMUP_RUNS not negative');
  }
  const m = machine();
  const loadBefore = loadavg()[0];
  log(`machine: ${describeMachine(m)}; load average ${loadBefore.toFixed(2)}`);
  const on = await measure('on', turns, reps);
  if (process.env['BENCH_ONLY_ON']) {
    log(`inline on: ${median(on.map((x) => x.wallMs / x.components)).toFixed(2)} ms a component`);
    return;
  }
  const off = await measure('off', turns, reps);
  const per = (s: Sample[], f: (x: Sample) => number) => median(s.map((x) => f(x) / x.components));
  const speedup = per(off, (x) => x.wallMs) / per(on, (x) => x.wallMs);
  const table = markdownTable(
    ['metric (median of runs)', 'inline on', 'inline off', 'off / on', 'target', 'met'],
    [
      [
        'time per component',
        `${per(on, (x) => x.wallMs).toFixed(2)} ms`,
        `${per(off, (x) => x.wallMs).toFixed(2)} ms`,
        `${speedup.toFixed(1)}×`,
        `≥ ${TARGET_SPEEDUP}×`,
        speedup >= TARGET_SPEEDUP ? 'yes' : 'no',
      ],
      [
        'CPU per component (services, NATS, Redis, Postgres)',
        `${per(on, (x) => x.cpuMs).toFixed(2)} ms`,
        `${per(off, (x) => x.cpuMs).toFixed(2)} ms`,
        `${(per(off, (x) => x.cpuMs) / per(on, (x) => x.cpuMs)).toFixed(1)}×`,
        '—',
        '',
      ],
      [
        'run: POST → end of its event stream',
        fmtMs(median(on.map((x) => x.wallMs))),
        fmtMs(median(off.map((x) => x.wallMs))),
        '',
        '—',
        '',
      ],
      [
        'components per run',
        String(median(on.map((x) => x.components))),
        String(median(off.map((x) => x.components))),
        '',
        '—',
        '',
      ],
    ],
  );
  const machineLine = describeMachine(m, [`1-minute load average before the run ${loadBefore.toFixed(2)}`]);
  const notes = [
    `The agent: libs/testing \`pureLoopCanvas(${turns})\` — Begin, a Loop of ${turns} turns (LoopItem →`,
    'VariableAssigner → StringTransform → Switch → StringTransform), the final LoopItem, and a Message',
    '(which streams, so it runs in the planner either way). One run at a time on a stack of its own per',
    `mode (TestStack, LOG_LEVEL=warn), ${reps} runs after ${WARMUP_RUNS} unmeasured; time from POST /v1/runs to the`,
    "end of the run's event stream, divided by the graph components it ran. Inline on chains at most",
    'SWITCHYARD_INLINE_MAX_CHAIN (64) steps or SWITCHYARD_INLINE_MAX_MS (50 ms) per transaction (the',
    'defaults), then one step goes over NATS.',
  ].join('\n');
  process.stdout.write(`\nMachine: ${machineLine}\n\n${table}\n\n${notes}\n`);
  writeResultsFile(RESULTS, 'Benchmark: inline pure nodes (`npm run bench:inline`)', machineLine, [
    table,
    notes,
  ]);
  log(`wrote ${RESULTS}`);
}

main().catch((err: Error) => {
  process.stderr.write(`bench:inline: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
