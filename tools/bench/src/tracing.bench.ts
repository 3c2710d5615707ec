// Tracing overhead: the same agent loop (planner → calculator, 20 rounds, then the answer) on the
// whole stack with tracing off and with tracing on (OTLP/HTTP to a sink in this process that
// takes and drops the spans), alternating, several repetitions. Prints the runtime's share of a
// step (wall time minus the nodes' own time, per step) at p50 and p99 for both, and the ratio.
// `npm run bench:tracing`; BENCH_REPS (default 3) repetitions of BENCH_RUNS (default 15) runs each.
import { writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { TestStack } from '@switchyard/testing';
import { describeMachine, machine } from './machine';
import { fmtMs, markdownTable, median, percentile } from './stats';
import { SwitchyardBench } from './switchyard.bench';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const SCRIPT = 'tools/bench/fixtures/bench.script.json';
const PROMPT = '[bench] loop';
const ROUNDS = 20;

const log = (msg: string) => process.stderr.write(`[bench:tracing] ${msg}\n`);

async function sink(): Promise<{ server: Server; url: string; spans: () => number }> {
  let spans = 0;
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      spans += bytes > 0 ? 1 : 0;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans: () => spans };
}

interface Sample {
  /** The runtime's share of a step (ms): wall time minus the nodes' own time, per step. */
  runtime: number;
  /** The whole step (ms): wall time per step, nodes included. */
  wall: number;
}

/** Per-step times of `runs` sequential runs on a fresh stack. */
async function measure(
  tracing: string | null,
  runs: number,
  sampler: Record<string, string> = {},
): Promise<Sample[]> {
  // BENCH_CPU_PROF=<dir>: the services write V8 CPU profiles to <dir>/off and <dir>/on.
  const prof = process.env['BENCH_CPU_PROF'];
  const stack = await TestStack.start({
    script: SCRIPT,
    nodeArgs: prof
      ? [
          '--cpu-prof',
          `--cpu-prof-dir=${resolve(prof, tracing ? (sampler['OTEL_TRACES_SAMPLER_ARG'] ? 'sampled' : 'on') : 'off')}`,
        ]
      : [],
    env: {
      SWITCHYARD_DEFAULT_MAX_STEPS: '1000',
      LOG_LEVEL: 'warn',
      ...(tracing ? { OTEL_EXPORTER_OTLP_ENDPOINT: tracing, ...sampler } : {}),
    },
  });
  try {
    const sy = new SwitchyardBench(stack);
    await sy.run({ prompt: PROMPT, rounds: ROUNDS }); // warm-up
    const perStep: Sample[] = [];
    for (let i = 0; i < runs; i++) {
      const s = await sy.run({ prompt: PROMPT, rounds: ROUNDS });
      perStep.push({ runtime: (s.wallMs - s.nodeMs) / s.steps, wall: s.wallMs / s.steps });
    }
    return perStep;
  } finally {
    await stack.stop();
  }
}

async function main(): Promise<void> {
  const reps = Number(process.env['BENCH_REPS'] ?? 3);
  const runs = Number(process.env['BENCH_RUNS'] ?? 15);
  const otlp = await sink();
  const off: Sample[][] = [];
  const on: Sample[][] = [];
  const sampled: Sample[][] = [];
  // Production tracing usually keeps a share of the traces: the same runs with 1 in 10 kept.
  const ratio = process.env['BENCH_TRACING_RATIO'] ?? '0.1';
  const sampler = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: ratio };
  try {
    // Each repetition starts with another mode (off, on, sampled; on, sampled, off; …): a stack
    // started later in a repetition runs on a warmer, fuller machine, and that must not read as
    // tracing's cost.
    const modes = [
      { name: 'tracing off', into: off, run: () => measure(null, runs) },
      { name: 'tracing on, every trace kept', into: on, run: () => measure(otlp.url, runs) },
      {
        name: `tracing on, ${ratio} of the traces kept`,
        into: sampled,
        run: () => measure(otlp.url, runs, sampler),
      },
    ];
    for (let r = 1; r <= reps; r++) {
      for (let m = 0; m < modes.length; m++) {
        const mode = modes[(r - 1 + m) % modes.length];
        log(`repetition ${r}/${reps}: ${mode.name}`);
        mode.into.push(await mode.run());
      }
    }
  } finally {
    otlp.server.close();
  }
  // Medians over the repetitions of each repetition's p50 and p99.
  const p = (set: Sample[][], k: keyof Sample, q: number) =>
    median(
      set.map((xs) =>
        percentile(
          xs.map((x) => x[k]),
          q,
        ),
      ),
    );
  const pct = (a: number, b: number) => `${((a / b - 1) * 100).toFixed(1)} %`;
  const rows = (['runtime', 'wall'] as const).flatMap((k) => [
    [
      k === 'runtime' ? 'runtime share of a step, tracing off' : 'whole step (nodes included), tracing off',
      fmtMs(p(off, k, 50)),
      fmtMs(p(off, k, 99)),
      '—',
      '—',
    ],
    [
      k === 'runtime' ? 'runtime share of a step, tracing on' : 'whole step (nodes included), tracing on',
      fmtMs(p(on, k, 50)),
      fmtMs(p(on, k, 99)),
      pct(p(on, k, 50), p(off, k, 50)),
      pct(p(on, k, 99), p(off, k, 99)),
    ],
    [
      `${k === 'runtime' ? 'runtime share' : 'whole step'}, tracing on, ${ratio} of traces kept`,
      fmtMs(p(sampled, k, 50)),
      fmtMs(p(sampled, k, 99)),
      pct(p(sampled, k, 50), p(off, k, 50)),
      pct(p(sampled, k, 99), p(off, k, 99)),
    ],
  ]);
  const table = markdownTable(['', 'p50', 'p99', 'p50 overhead', 'p99 overhead'], rows);
  const text = [
    '# Tracing overhead (`npm run bench:tracing`)',
    '',
    describeMachine(machine(), [
      `${reps} repetitions × ${runs} runs of the ${ROUNDS}-round loop each way (off, on, sampled; each repetition starting with the next mode), medians of the repetitions' p50 and p99`,
      `${otlp.spans()} OTLP export requests received while tracing was on`,
    ]),
    '',
    table,
    '',
    'Runtime share = (run wall time − the nodes’ own time) ÷ steps: what the orchestrator, NATS,',
    'Postgres, Redis and the services’ plumbing cost around the nodes — where tracing adds its work',
    '(a span per node task, per orchestrator step, per model and tool call; the trace context in each message).',
    'Whole step = run wall time ÷ steps, with the scripted model answering at once: a real model’s',
    'seconds per call make the same absolute cost a far smaller share. Every span is exported here;',
    'a sampler (`OTEL_TRACES_SAMPLER=parentbased_traceidratio`, `OTEL_TRACES_SAMPLER_ARG`) exports fewer.',
    '',
  ].join('\n');
  process.stdout.write(`${text}\n`);
  if (process.env['BENCH_CPU_PROF']) {
    log('TRACING-RESULTS.md not written: a profiled run');
    return;
  }
  writeFileSync(join(ROOT, 'tools', 'bench', 'TRACING-RESULTS.md'), text);
}

void main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
