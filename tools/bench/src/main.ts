// Switchyard vs LangGraph.js on the same agent loop: planner (LLM) → calculator, N rounds, then the
// answer, both against the same scripted OpenAI-compatible model server over HTTP. Prints a
// markdown table (medians of several runs) and writes it to tools/bench/RESULTS.md.
// Usage: node tools/scripts/build.mjs && node dist/tools/bench/src/main.js
// Environment: BENCH_ROUNDS (20,50), BENCH_REPS (5), BENCH_CONCURRENCY (8), KEEP_BENCH_LOGS=1,
// BENCH_CPU_PROF=<dir> (the services write V8 CPU profiles there), BENCH_NODE_ARGS (Node.js flags for
// every service, space-separated: `--trace-gc`, `--max-semi-space-size=32`), BENCH_LOOP_STEPS (30,150,600),
// BENCH_LOOP_CONCURRENCY (32), BENCH_SKIP_LLM=1 (the pure-runtime loop only), BENCH_WARMUP_STEPS (2000:
// unmeasured steps of each system before each loop's cells).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SERVICE_APPS, TestStack } from '@switchyard/testing';
import { type LangGraphVariant, LangGraphBench } from './langgraph.bench';
import { describeMachine, machine } from './machine';
import { rss } from './proc';
import {
  LangGraphLoop,
  type LoopConcurrentSample,
  type LoopSample,
  SwitchyardLoop,
  roundsFor,
} from './runtime-loop.bench';
import { fmtBytes, fmtCount, fmtMs, fmtRate, markdownTable, median, percentile } from './stats';
import { SwitchyardBench } from './switchyard.bench';
import type { ConcurrentSample, RunSample } from './types';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const SCRIPT = 'tools/bench/fixtures/bench.script.json';
const RESULTS = join(ROOT, 'tools', 'bench', 'RESULTS.md');

/** The prompts bench.script.json knows: its planner calls calculator until N tool results. */
const PROMPTS: Record<number, string> = { 20: '[bench] loop', 50: '[bench] loop [n=50]' };

type System = 'switchyard' | LangGraphVariant;
const COLUMNS: { key: System; title: string }[] = [
  { key: 'switchyard', title: 'Switchyard' },
  { key: 'mirror', title: 'LangGraph.js (same nodes)' },
  { key: 'minimal', title: 'LangGraph.js (planner⇄calculator)' },
];

interface Config {
  rounds: number[];
  reps: number;
  concurrency: number;
  loopSteps: number[];
  loopConcurrency: number;
  /** Only the pure-runtime loop (no LLM loop). */
  skipLlm: boolean;
  /** Every row RESULTS.md has (the default rounds and loop lengths): only such a run rewrites it. */
  whole: boolean;
  /**
   * Unmeasured steps of each system before each loop's cells (JIT, connection pools, caches):
   * whole runs, in turn, until each system has taken this many. Every cell measures processes in
   * their steady state, as a service runs in production: two runs (~60 steps) left Switchyard's
   * seven processes half-compiled — V8 was still optimising hundreds of functions in the first
   * cells (PROFILE.md, round 13) — while LangGraph.js's one process had warmed on the same library
   * code.
   */
  warmupSteps: number;
}

const DEFAULT_ROUNDS = '20,50';
const DEFAULT_LOOP_STEPS = '30,150,600';

function config(): Config {
  const rounds = (process.env['BENCH_ROUNDS'] ?? DEFAULT_ROUNDS)
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
  for (const n of rounds) {
    if (!PROMPTS[n]) {
      throw new Error(`BENCH_ROUNDS: ${n} is not scripted (bench.script.json knows ${Object.keys(PROMPTS)})`);
    }
  }
  const reps = Number(process.env['BENCH_REPS'] ?? 5);
  const concurrency = Number(process.env['BENCH_CONCURRENCY'] ?? 8);
  if (!rounds.length || !(reps >= 1) || !(concurrency >= 1)) {
    throw new Error('BENCH_ROUNDS, BENCH_REPS and BENCH_CONCURRENCY must be positive');
  }
  const loopSteps = (process.env['BENCH_LOOP_STEPS'] ?? DEFAULT_LOOP_STEPS)
    .split(',')
    .map((x) => Number(x.trim()))
    .filter((n) => n > 0);
  loopSteps.forEach(roundsFor); // throws on a count the loop cannot make
  const loopConcurrency = Math.floor(Number(process.env['BENCH_LOOP_CONCURRENCY'] ?? 32));
  if (!(loopConcurrency >= 1)) {
    throw new Error('BENCH_LOOP_CONCURRENCY must be positive');
  }
  const warmupSteps = Number(process.env['BENCH_WARMUP_STEPS'] ?? 2000);
  if (!Number.isInteger(warmupSteps) || warmupSteps < 0) {
    throw new Error('BENCH_WARMUP_STEPS must be a whole number of steps, not negative');
  }
  return {
    rounds,
    reps: Math.floor(reps),
    concurrency: Math.floor(concurrency),
    loopSteps,
    loopConcurrency,
    skipLlm: process.env['BENCH_SKIP_LLM'] === '1',
    whole: rounds.join(',') === DEFAULT_ROUNDS && loopSteps.join(',') === DEFAULT_LOOP_STEPS,
    warmupSteps,
  };
}

/** The pure loop warms up on runs of this many steps (3 + 3k). */
const WARMUP_LOOP_STEPS = 150;

interface Contender {
  key: System;
  run(rounds: number, durability?: 'sync'): Promise<RunSample>;
  concurrent(rounds: number, count: number): Promise<ConcurrentSample>;
}

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

class Results {
  readonly seq = new Map<string, RunSample[]>();
  readonly sync = new Map<System, RunSample[]>();
  readonly conc = new Map<System, ConcurrentSample[]>();

  add(system: System, rounds: number, s: RunSample): void {
    const key = `${system}:${rounds}`;
    this.seq.set(key, [...(this.seq.get(key) ?? []), s]);
  }
  runs(system: System, rounds: number): RunSample[] {
    return this.seq.get(`${system}:${rounds}`) ?? [];
  }
}

type LoopSystem = 'switchyard' | 'langgraph';

class LoopResults {
  readonly seq = new Map<string, LoopSample[]>();
  readonly conc = new Map<LoopSystem, LoopConcurrentSample[]>();
  readonly idleRss = new Map<string, number>();

  add(system: LoopSystem, steps: number, s: LoopSample): void {
    const key = `${system}:${steps}`;
    this.seq.set(key, [...(this.seq.get(key) ?? []), s]);
  }
  runs(system: LoopSystem, steps: number): LoopSample[] {
    return this.seq.get(`${system}:${steps}`) ?? [];
  }
}

/** Switchyard's figure over LangGraph's, e.g. `×0.80`. */
const ratio = (sy: number, lg: number) => (Number.isFinite(sy / lg) ? `×${(sy / lg).toFixed(2)}` : 'n/a');

function loopTable(cfg: Config, r: LoopResults): string {
  const rows: string[][] = [];
  const row = (metric: string, f: (s: LoopSystem) => number, fmt: (v: number) => string) => {
    const sy = f('switchyard');
    const lg = f('langgraph');
    rows.push([metric, fmt(sy), fmt(lg), ratio(sy, lg)]);
  };
  for (const n of cfg.loopSteps) {
    const med = (s: LoopSystem, f: (x: LoopSample) => number) => median(r.runs(s, n).map(f));
    const pooled = (s: LoopSystem) => r.runs(s, n).flatMap((x) => x.stepMs);
    row(`${n} steps: wall time per run`, (s) => med(s, (x) => x.wallMs), fmtMs);
    row(`${n} steps: time per step`, (s) => med(s, (x) => x.wallMs / x.steps), fmtMs);
    row(`${n} steps: step time p50`, (s) => percentile(pooled(s), 50), fmtMs);
    row(`${n} steps: step time p99`, (s) => percentile(pooled(s), 99), fmtMs);
    row(`${n} steps: CPU per step (all processes)`, (s) => med(s, (x) => x.cpuMs / x.steps), fmtMs);
  }
  const k = cfg.loopConcurrency;
  const n0 = cfg.loopSteps[0];
  const conc = (s: LoopSystem, f: (c: LoopConcurrentSample) => number) =>
    median((r.conc.get(s) ?? []).map(f));
  row(
    `${k} concurrent runs (${n0} steps): throughput`,
    (s) => conc(s, (c) => (c.steps * 1000) / c.totalMs),
    (v) => fmtRate(v, 'steps'),
  );
  row(`${k} concurrent runs: CPU per step (all processes)`, (s) => conc(s, (c) => c.cpuMs / c.steps), fmtMs);
  return markdownTable(['metric', 'Switchyard', 'LangGraph.js (same loop)', 'Switchyard ÷ LangGraph'], rows);
}

/**
 * Switchyard's CPU per step by process: the longest single-run size and the concurrent runs
 * (medians over the repetitions), to set beside `npm run bench:floor`'s bare-client step.
 */
function cpuByProcessTable(cfg: Config, r: LoopResults): string {
  const n = cfg.loopSteps[cfg.loopSteps.length - 1];
  const seq = r.runs('switchyard', n);
  const conc = r.conc.get('switchyard') ?? [];
  const names = [...new Set([...seq, ...conc].flatMap((s) => [...(s.cpuBy?.keys() ?? [])]))];
  const per = (samples: { cpuBy?: Map<string, number>; steps: number }[], name: string) =>
    fmtMs(median(samples.map((s) => (s.cpuBy?.get(name) ?? 0) / s.steps)));
  return markdownTable(
    [
      'Switchyard process',
      `CPU per step, ${n} steps`,
      `CPU per step, ${cfg.loopConcurrency} concurrent runs`,
    ],
    names
      // Services the loop does not use (tool-executor, retrieval, output) are left out.
      .filter((name) =>
        [seq, conc].some(
          (samples) => median(samples.map((s) => (s.cpuBy?.get(name) ?? 0) / s.steps)) >= 0.05,
        ),
      )
      .map((name) => [name, per(seq, name), per(conc, name)]),
  );
}

function rssTable(r: LoopResults): string {
  const peaks = new Map<string, number[]>();
  for (const c of [...(r.conc.get('switchyard') ?? []), ...(r.conc.get('langgraph') ?? [])]) {
    for (const [name, bytes] of c.peakRss) {
      peaks.set(name, [...(peaks.get(name) ?? []), bytes]);
    }
  }
  const names = [...new Set([...r.idleRss.keys(), ...peaks.keys()])];
  return markdownTable(
    ['process', 'RSS idle', 'RSS peak under the concurrent loop runs (median of reps)'],
    names.map((n) => [n, fmtBytes(r.idleRss.get(n) ?? Number.NaN), fmtBytes(median(peaks.get(n) ?? []))]),
  );
}

function loopNotes(cfg: Config): string {
  return [
    `Pure-runtime loop: intake → planner → tool → reflection → planner …, every node returning at once with a`,
    `~1 KB random (incompressible) result and its \`next\`, no LLM; ${cfg.loopSteps.join(', ')} Switchyard steps per run`,
    `(start, intake, 3 per tool round, the final planner; LangGraph's run of the same rounds has no \`start\`, one`,
    `step fewer). Switchyard: the loop's nodes are served by tools/bench-nodes (a node service on the worker`,
    `runtime, in place of the planner and reflection services); LangGraph.js: the same graph with PostgresSaver`,
    `(durability "async", its default), in the benchmark process. Medians of ${cfg.reps} runs per cell, after`,
    `${WARMUP_LOOP_STEPS}-step runs of each system, in turn, until each took ${cfg.warmupSteps} steps; step time`,
    `p50/p99: time from one step to the next, over all measured runs, in microseconds (Switchyard: from one step's`,
    `transaction start to the next's, state_deltas.created_at; LangGraph: from one node's end to the next's; its`,
    `"async" checkpoints are written while the next steps run and drain at the end: in its wall time, mostly not`,
    `in its step times).`,
    `CPU per step: user+sys from`,
    `/proc of every process of the system during the run, divided by its steps — Switchyard: the services,`,
    `bench-nodes, nats-server, redis-server and the Postgres backends connected to its database; LangGraph.js:`,
    `the benchmark process and the backends of its database. Postgres' shared background processes (WAL`,
    `writer, checkpointer) are left out of both. RSS: /proc/<pid>/status VmRSS, idle after start-up and the peak`,
    `sampled every 200 ms during the ${cfg.loopConcurrency} concurrent runs.`,
  ].join('\n');
}

/** Runs `fn` and counts the requests the model server answered meanwhile. */
async function counted(llmUrl: string, fn: () => Promise<RunSample>): Promise<RunSample> {
  await fetch(`${llmUrl}/_requests`, { method: 'DELETE' });
  const sample = await fn();
  const records = (await (await fetch(`${llmUrl}/_requests`)).json()) as unknown[];
  return { ...sample, llmRequests: records.length };
}

function versionOf(pkg: string): string {
  try {
    return (
      JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return '?';
  }
}

function natsVersion(): string {
  try {
    return execFileSync(process.env['NATS_SERVER_BIN'] ?? 'nats-server', ['--version'], {
      encoding: 'utf8',
    }).trim();
  } catch {
    return 'nats-server ?';
  }
}

function table(cfg: Config, r: Results): string {
  const rows: string[][] = [];
  const row = (metric: string, cell: (s: System) => string) =>
    rows.push([metric, ...COLUMNS.map((c) => cell(c.key))]);
  const med = (samples: RunSample[], f: (s: RunSample) => number) =>
    samples.length ? median(samples.map(f)) : Number.NaN;
  for (const n of cfg.rounds) {
    const p = `N=${n}:`;
    row(`${p} steps per run`, (s) => fmtCount(med(r.runs(s, n), (x) => x.steps)));
    row(`${p} model requests per run`, (s) =>
      fmtCount(med(r.runs(s, n), (x) => x.llmRequests ?? Number.NaN)),
    );
    row(`${p} wall time per run`, (s) => fmtMs(med(r.runs(s, n), (x) => x.wallMs)));
    row(`${p} time per step`, (s) => fmtMs(med(r.runs(s, n), (x) => x.wallMs / x.steps)));
    row(`${p} … of it inside the nodes (LLM call, tool)`, (s) =>
      fmtMs(med(r.runs(s, n), (x) => x.nodeMs / x.steps)),
    );
    row(`${p} … of it the runtime's (dispatch, checkpoint, state)`, (s) =>
      fmtMs(med(r.runs(s, n), (x) => (x.wallMs - x.nodeMs) / x.steps)),
    );
    row(`${p} checkpoint bytes per run`, (s) => fmtBytes(med(r.runs(s, n), (x) => x.bytes)));
    row(
      `${p} checkpoint bytes of a step, first → last calculator step`,
      (s) =>
        `${fmtBytes(med(r.runs(s, n), (x) => x.firstToolBytes))} → ${fmtBytes(med(r.runs(s, n), (x) => x.lastToolBytes))}`,
    );
    row(`${p} other state bytes per run (run_tasks.delta + snapshots)`, (s) =>
      s === 'switchyard' ? fmtBytes(med(r.runs(s, n), (x) => x.otherBytes)) : '—',
    );
  }
  const n0 = cfg.rounds[0];
  row(`N=${n0}: wall time per run, LangGraph durability "sync"`, (s) => {
    const runs = r.sync.get(s) ?? [];
    return s === 'switchyard'
      ? '(always: commit, then next step)'
      : `${fmtMs(med(runs, (x) => x.wallMs))} (${fmtMs(med(runs, (x) => x.wallMs / x.steps))}/step)`;
  });
  const k = cfg.concurrency;
  const conc = (s: System, f: (c: ConcurrentSample) => number) => {
    const cs = r.conc.get(s) ?? [];
    return cs.length ? median(cs.map(f)) : Number.NaN;
  };
  row(`${k} concurrent runs (N=${n0}): time for all ${k}`, (s) => fmtMs(conc(s, (c) => c.totalMs)));
  row(`${k} concurrent runs: throughput`, (s) =>
    fmtRate(
      conc(s, (c) => (c.runs * 1000) / c.totalMs),
      'runs',
    ),
  );
  row(`${k} concurrent runs: steps`, (s) =>
    fmtRate(
      conc(s, (c) => (c.steps * 1000) / c.totalMs),
      'steps',
    ),
  );
  row(`${k} concurrent runs: median run latency`, (s) =>
    fmtMs(median((r.conc.get(s) ?? []).flatMap((c) => c.latenciesMs))),
  );
  return markdownTable(['metric', ...COLUMNS.map((c) => c.title)], rows);
}

function notes(cfg: Config, startupMs: number): string {
  return [
    `Medians of ${cfg.reps} runs per cell, after unmeasured runs of each system until it took ${cfg.warmupSteps} steps`,
    `(steady state: every process compiled and its pools and caches filled); the systems take turns in`,
    `every repetition. The loop: planner (LLM) → calculator("1+1"), N rounds, then the answer. Both systems call`,
    `the same scripted OpenAI-compatible model server (tools/bench/fixtures/bench.script.json: demo.json's rules,`,
    `streaming delays off) over HTTP through langchain's ChatOpenAI. Wall time is measured by the client:`,
    `Switchyard from POST /v1/runs to the end of the run's SSE stream (after \`done\`), LangGraph from`,
    `graph.stream() to the stream's end.`,
    '',
    `- Switchyard: the whole stack as separate processes on this machine (TestStack: nats-server, redis-server,`,
    `  Postgres, the seven services with LOG_LEVEL=warn; started in ${fmtMs(startupMs)}). Its runs' agent is the`,
    `  default agent offering the calculator alone (as LangGraph's planner binds it alone), which adds steps`,
    `  around the loop: start, intake (LLM), memory, and a reflection (LLM) after every tool round. A step`,
    `  is one action. Checkpoint bytes: pg_column_size(delta) of the run's state_deltas rows; "other state" is what`,
    `  the run left in run_tasks.delta plus the thread's state snapshots (one at the end of the run).`,
    `- LangGraph.js: a StateGraph (MessagesAnnotation + an \`actions\` list appended each step) compiled with`,
    `  PostgresSaver on a fresh database, run inside the benchmark process (Switchyard's services stay up, idle).`,
    `  "same nodes": intake → memory → planner ⇄ (calculator → reflection) → output with Switchyard's`,
    `  prompts, tool and reply schemas (intake and reflection ask natively with langchain's withStructuredOutput,`,
    `  jsonSchema), so both make the same model requests (Switchyard adds a todo-planning call a turn and streams`,
    `  its structured replies); "planner⇄calculator": the minimal loop. A step is one node`,
    `  execution. Checkpoint bytes: pg_column_size of checkpoints.checkpoint + metadata, checkpoint_blobs.blob and`,
    `  checkpoint_writes.blob for the thread; a step's share is its checkpoint row, the blobs of the channel`,
    `  versions it created and the writes of its task. Durability is LangGraph's default ("async": a checkpoint is`,
    `  saved while the next step runs) except in the "sync" row (saved before the next step starts).`,
    `- Time inside the nodes: Switchyard's actions' finished_at − started_at (stamped by the node service when it`,
    `  takes the task, before it loads the state, and when the node's code returns); LangGraph: each node function`,
    `  timed. The runtime's share is the rest of the wall time, per step.`,
    `- First → last calculator step: the same work in every round, so any growth is the checkpoint format's.`,
    `- ${cfg.concurrency} concurrent runs: started together, each on its own thread; time from the first start to`,
    `  the last end.`,
  ].join('\n');
}

async function main(): Promise<void> {
  const cfg = config();
  const m = machine();
  const loadBefore = loadavg()[0];
  log(`machine: ${describeMachine(m)}; load average ${loadBefore.toFixed(2)}`);
  const results = new Results();
  const loopResults = new LoopResults();
  let stack: TestStack | undefined;
  let lg: LangGraphBench | undefined;
  let syLoop: SwitchyardLoop | undefined;
  let lgLoop: LangGraphLoop | undefined;
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) {
      return;
    }
    cleaned = true;
    const step = async (what: string, fn: () => unknown) => {
      try {
        await fn();
      } catch (err) {
        log(`cleanup: ${what}: ${(err as Error).message}`);
      }
    };
    await step('LangGraph database', () => lg?.close());
    await step('LangGraph loop database', () => lgLoop?.close());
    await step('bench-nodes', () => syLoop?.stop());
    await step('Switchyard stack', () => stack?.stop());
    if (!process.env['KEEP_BENCH_LOGS']) {
      await step('logs', () => stack && rmSync(stack.dir, { recursive: true, force: true }));
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  let startupMs = 0;
  let postgres = '?';
  const nodeArgs = [
    ...(process.env['BENCH_CPU_PROF']
      ? ['--cpu-prof', `--cpu-prof-dir=${resolve(process.env['BENCH_CPU_PROF'])}`]
      : []),
    // Node.js flags for every service, e.g. `--trace-gc` (which NODE_OPTIONS refuses).
    ...(process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter(Boolean),
  ];
  const t0 = performance.now();
  try {
    log('starting the Switchyard stack (nats-server, database, model server, seven services)');
    const started = performance.now();
    stack = await TestStack.start({
      script: SCRIPT,
      env: { SWITCHYARD_DEFAULT_MAX_STEPS: '1000', LOG_LEVEL: 'warn' },
      // Each service writes a V8 CPU profile there when it stops (see PROFILE.md).
      nodeArgs,
    });
    startupMs = performance.now() - started;
    const llmUrl = stack.llmUrl;
    postgres = (await stack.sql<{ server_version: string }>('SHOW server_version'))[0]?.server_version ?? '?';

    for (const app of SERVICE_APPS) {
      loopResults.idleRss.set(app, rss(stack.pid(app) ?? 0));
    }
    const sy = new SwitchyardBench(stack);
    lg = await LangGraphBench.create(stack.databaseUrl, `${llmUrl}/v1`);
    const bench = lg;
    const systems: Contender[] = [
      {
        key: 'switchyard',
        run: (n) => sy.run({ prompt: PROMPTS[n], rounds: n }),
        concurrent: (n, k) => sy.concurrent({ prompt: PROMPTS[n], rounds: n }, k),
      },
      ...(['mirror', 'minimal'] as const).map((v): Contender => ({
        key: v,
        run: (n, durability) => bench.run(v, { prompt: PROMPTS[n], rounds: n, durability }),
        concurrent: (n, k) => bench.concurrent(v, { prompt: PROMPTS[n], rounds: n }, k),
      })),
    ];
    if (!cfg.skipLlm) {
      await llmLoop(cfg, systems, results, llmUrl);
    }

    log('pure-runtime loop: tools/bench-nodes in place of the planner and reflection services');
    syLoop = await SwitchyardLoop.start(stack, nodeArgs);
    lgLoop = await LangGraphLoop.create(stack.databaseUrl);
    for (const [name, pid] of syLoop.processes()) {
      if (!loopResults.idleRss.has(name)) {
        loopResults.idleRss.set(name, rss(pid));
      }
    }
    loopResults.idleRss.set('bench process (LangGraph)', process.memoryUsage().rss);
    const loops = { switchyard: syLoop, langgraph: lgLoop } as const;
    await warmUp(
      cfg.warmupSteps,
      'pure loop',
      Object.values(loops).map((l) => async () => (await l.run(WARMUP_LOOP_STEPS)).steps),
    );
    for (let i = 1; i <= cfg.reps; i++) {
      for (const n of cfg.loopSteps) {
        for (const [key, l] of Object.entries(loops) as [LoopSystem, SwitchyardLoop | LangGraphLoop][]) {
          const s = await l.run(n);
          log(`#${i} loop ${n} steps ${key}: ${fmtMs(s.wallMs)}, CPU ${fmtMs(s.cpuMs)}`);
          loopResults.add(key, n, s);
        }
      }
    }
    for (let i = 1; i <= cfg.reps; i++) {
      for (const [key, l] of Object.entries(loops) as [LoopSystem, SwitchyardLoop | LangGraphLoop][]) {
        const c = await l.concurrent(cfg.loopSteps[0], cfg.loopConcurrency);
        log(
          `#${i} loop ${cfg.loopConcurrency} concurrent ${key}: ${fmtMs(c.totalMs)}, CPU ${fmtMs(c.cpuMs)}`,
        );
        loopResults.conc.set(key, [...(loopResults.conc.get(key) ?? []), c]);
      }
    }
  } finally {
    await cleanup();
  }
  log(`done in ${fmtMs(performance.now() - t0)}`);
  report(cfg, m, postgres, loadBefore, results, loopResults, startupMs);
}

/**
 * Runs each system (a run answers its steps) in turn until every one has taken `steps` steps;
 * nothing is measured.
 */
async function warmUp(steps: number, what: string, runs: (() => Promise<number>)[]): Promise<void> {
  log(`warm-up (${what}): ${steps} steps of each system`);
  const taken = runs.map(() => 0);
  while (taken.some((n) => n < steps)) {
    for (const [i, run] of runs.entries()) {
      if (taken[i] < steps) {
        taken[i] += await run();
      }
    }
  }
}

async function llmLoop(cfg: Config, systems: Contender[], results: Results, llmUrl: string): Promise<void> {
  const n0 = cfg.rounds[0];
  await warmUp(
    cfg.warmupSteps,
    'LLM loop',
    systems.map((sys) => async () => (await sys.run(n0)).steps),
  );
  // Each repetition runs every system once, in turn, so drift and other load on the machine
  // spread over all of them rather than landing on one.
  for (let i = 1; i <= cfg.reps; i++) {
    for (const n of cfg.rounds) {
      for (const sys of systems) {
        const s = await counted(llmUrl, () => sys.run(n));
        log(`#${i} N=${n} ${sys.key}: ${fmtMs(s.wallMs)}, ${s.steps} steps, ${fmtBytes(s.bytes)}`);
        results.add(sys.key, n, s);
      }
    }
    for (const sys of systems.filter((x) => x.key !== 'switchyard')) {
      const s = await sys.run(n0, 'sync');
      log(`#${i} N=${n0} ${sys.key} durability=sync: ${fmtMs(s.wallMs)}`);
      results.sync.set(sys.key, [...(results.sync.get(sys.key) ?? []), s]);
    }
  }
  for (let i = 1; i <= cfg.reps; i++) {
    for (const sys of systems) {
      const c = await sys.concurrent(n0, cfg.concurrency);
      log(`#${i} ${cfg.concurrency} concurrent ${sys.key}: ${fmtMs(c.totalMs)}`);
      results.conc.set(sys.key, [...(results.conc.get(sys.key) ?? []), c]);
    }
  }
}

function report(
  cfg: Config,
  m: ReturnType<typeof machine>,
  postgres: string,
  loadBefore: number,
  results: Results,
  loopResults: LoopResults,
  startupMs: number,
): void {
  const machineLine = describeMachine(m, [
    `PostgreSQL ${postgres}`,
    natsVersion(),
    `@langchain/langgraph ${versionOf('@langchain/langgraph')}`,
    `@langchain/langgraph-checkpoint-postgres ${versionOf('@langchain/langgraph-checkpoint-postgres')}`,
    `1-minute load average before the run ${loadBefore.toFixed(2)} (other work on the machine skews the numbers)`,
  ]);
  const body = [
    ...(cfg.skipLlm ? [] : [table(cfg, results), '', notes(cfg, startupMs), '']),
    '## Pure-runtime loop',
    '',
    loopTable(cfg, loopResults),
    '',
    cpuByProcessTable(cfg, loopResults),
    '',
    rssTable(loopResults),
    '',
    loopNotes(cfg),
    `1-minute load average after the run: ${loadavg()[0].toFixed(2)}.`,
  ].join('\n');
  process.stdout.write(`\nMachine: ${machineLine}\n\n${body}\n`);
  const date = new Date()
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  if (cfg.skipLlm || !cfg.whole || process.env['BENCH_CPU_PROF']) {
    log(`${RESULTS} not written: a partial or profiled run`);
    return;
  }
  writeFileSync(
    RESULTS,
    [
      '# Benchmark: Switchyard vs LangGraph.js',
      '',
      `Last run: ${date}, \`node tools/scripts/build.mjs && node dist/tools/bench/src/main.js\`.`,
      '',
      `Machine: ${machineLine}.`,
      '',
      body,
      '',
    ].join('\n'),
  );
  log(`wrote ${RESULTS}`);
}

main().catch((err: Error) => {
  process.stderr.write(`bench: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
