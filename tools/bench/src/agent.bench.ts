// The default agent end to end (#29): 32 runs at once of start → intake → memory → planner →
// calculator → reflection → planner → output against the scripted model server replying at once,
// tracing on as in production (OTLP/HTTP to a sink in this process). Measures what the whole stack
// spends per step: CPU by process (/proc; the model server left out: it stands in for a vendor),
// Postgres transactions and rows read per step (pg_stat_database), throughput.
// Usage: npm run bench:agent. Environment: BENCH_AGENT_RUNS (32: runs at once), BENCH_REPS (5:
// batches measured, medians printed), BENCH_CPU_PROF=<dir> (V8 CPU profiles of the services),
// BENCH_TRACING=0 (tracing off). Prints a markdown table and writes tools/bench/AGENT-RESULTS.md
// (not when profiled).
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SERVICE_APPS, TestStack } from '@switchyard/testing';
import { describeMachine, machine } from './machine';
import { CpuMeter } from './proc';
import { writeResultsFile } from './results-file';
import { runToEnd } from './run-to-end';
import { fmtMs, markdownTable, median } from './stats';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const SCRIPT = 'tools/bench/fixtures/agent.script.json';
const RESULTS = join(ROOT, 'tools', 'bench', 'AGENT-RESULTS.md');
const PROMPT = 'what is 2+3*4?';
const WARMUP_BATCHES = 1;
const TARGETS = { cpuPerStepMs: 15, postgresPerStepMs: 4 };

const log = (msg: string) => process.stderr.write(`[bench:agent] ${msg}\n`);

/** An OTLP/HTTP endpoint that accepts and drops what it is sent. */
async function sink(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

interface Batch {
  wallMs: number;
  steps: number;
  cpuMs: number;
  cpuBy: Map<string, number>;
  xacts: number;
  rowsRead: number;
}

async function dbStats(stack: TestStack): Promise<{ xacts: number; rowsRead: number }> {
  const [row] = await stack.sql<{ xacts: string; rows: string }>(
    `SELECT xact_commit + xact_rollback AS xacts, tup_returned + tup_fetched AS rows
     FROM pg_stat_database WHERE datname = current_database()`,
  );
  return { xacts: Number(row.xacts), rowsRead: Number(row.rows) };
}

async function batch(stack: TestStack, cpu: CpuMeter, runs: number): Promise<Batch> {
  // pg_stat_database is updated by each backend at its transaction ends, at most every 500 ms.
  await new Promise((r) => setTimeout(r, 1100));
  const before = await dbStats(stack);
  await cpu.start();
  const t0 = performance.now();
  const ids = await Promise.all(Array.from({ length: runs }, () => runToEnd(stack, PROMPT)));
  const wallMs = performance.now() - t0;
  const cpuMs = await cpu.stop();
  await new Promise((r) => setTimeout(r, 1100));
  const after = await dbStats(stack);
  const rows = await stack.sql<{ status: string; steps: number }>(
    'SELECT status, steps FROM runs WHERE id = ANY($1::uuid[])',
    [ids],
  );
  const bad = rows.filter((r) => r.status !== 'succeeded');
  if (bad.length || rows.length !== runs) {
    throw new Error(`${bad.length} of ${runs} runs did not succeed: ${JSON.stringify(bad.slice(0, 3))}`);
  }
  return {
    wallMs,
    steps: rows.reduce((n, r) => n + r.steps, 0),
    cpuMs,
    cpuBy: cpu.breakdown,
    // The bench's own reads of the statistics are two transactions.
    xacts: after.xacts - before.xacts - 2,
    rowsRead: after.rowsRead - before.rowsRead,
  };
}

async function main(): Promise<void> {
  const runs = Math.floor(Number(process.env['BENCH_AGENT_RUNS'] ?? 32));
  const reps = Math.floor(Number(process.env['BENCH_REPS'] ?? 5));
  if (!(runs >= 1) || !(reps >= 1)) {
    throw new Error('BENCH_AGENT_RUNS and BENCH_REPS must be positive');
  }
  const tracing = process.env['BENCH_TRACING'] !== '0';
  const prof = process.env['BENCH_CPU_PROF'];
  const m = machine();
  const loadBefore = loadavg()[0];
  log(`machine: ${describeMachine(m)}; load average ${loadBefore.toFixed(2)}`);
  const otlp = await sink();
  const stack = await TestStack.start({
    script: SCRIPT,
    nodeArgs: prof ? ['--cpu-prof', `--cpu-prof-dir=${resolve(prof)}`] : [],
    env: { LOG_LEVEL: 'warn', ...(tracing ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url } : {}) },
  });
  const batches: Batch[] = [];
  let postgres = '?';
  try {
    postgres = (await stack.sql<{ server_version: string }>('SHOW server_version'))[0]?.server_version ?? '?';
    const names = new Map<number, string>();
    for (const name of [...SERVICE_APPS, 'nats', 'redis'] as const) {
      const pid = stack.pid(name);
      if (pid) {
        names.set(pid, name);
      }
    }
    const cpu = new CpuMeter(
      async () => {
        const backends = await stack.sql<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        );
        return [...names.keys(), ...backends.map((b) => b.pid)];
      },
      // Every pid that is not one of the stack's own is a backend of its database.
      (pid) => names.get(pid) ?? 'postgres',
    );
    for (let i = 0; i < WARMUP_BATCHES; i++) {
      await batch(stack, cpu, runs);
    }
    for (let i = 1; i <= reps; i++) {
      const b = await batch(stack, cpu, runs);
      log(
        `#${i}: ${runs} runs, ${b.steps} steps in ${fmtMs(b.wallMs)}; CPU ${(b.cpuMs / b.steps).toFixed(1)} ms/step`,
      );
      batches.push(b);
    }
  } finally {
    await stack.stop();
    otlp.server.close();
  }

  const med = (f: (b: Batch) => number) => median(batches.map(f));
  const perStep = (f: (b: Batch) => number) => med((b) => f(b) / b.steps);
  const processes = [...new Set(batches.flatMap((b) => [...b.cpuBy.keys()]))].sort();
  const cpuStep = perStep((b) => b.cpuMs);
  const pgStep = perStep((b) => b.cpuBy.get('postgres') ?? 0);
  const rows: string[][] = [
    ['throughput', `${med((b) => b.steps / (b.wallMs / 1000)).toFixed(0)} steps/s`, '—', ''],
    ['run time (32 at once: first POST → last stream end)', fmtMs(med((b) => b.wallMs)), '—', ''],
    [
      '**CPU per step, whole stack**',
      `**${cpuStep.toFixed(1)} ms**`,
      `≤ ${TARGETS.cpuPerStepMs} ms`,
      cpuStep <= TARGETS.cpuPerStepMs ? 'yes' : 'no',
    ],
    ...processes.map((p) => [
      `… ${p}`,
      `${perStep((b) => b.cpuBy.get(p) ?? 0).toFixed(2)} ms`,
      p === 'postgres' ? `≤ ${TARGETS.postgresPerStepMs} ms` : '—',
      p === 'postgres' ? (pgStep <= TARGETS.postgresPerStepMs ? 'yes' : 'no') : '',
    ]),
    ['Postgres transactions per step', perStep((b) => b.xacts).toFixed(2), '—', ''],
    ['Postgres rows read per step', perStep((b) => b.rowsRead).toFixed(0), '—', ''],
    ['steps per run', (med((b) => b.steps) / runs).toFixed(1), '—', ''],
  ];
  const machineLine = describeMachine(m, [
    `PostgreSQL ${postgres}`,
    `1-minute load average before the run ${loadBefore.toFixed(2)}`,
  ]);
  const table = markdownTable(['metric (median of batches)', 'value', 'target', 'met'], rows);
  const notes = [
    `Each batch: ${runs} runs of the default agent posted at once on new threads (\`${PROMPT}\`), each`,
    'read to the end of its event stream; CPU of the seven services, nats-server, redis-server and the',
    "database's Postgres backends from /proc between the first POST and the last stream's end (the",
    `scripted model server left out); ${reps} batches after ${WARMUP_BATCHES} unmeasured, medians. Tracing`,
    tracing ? 'on (every span exported over OTLP/HTTP to a sink).' : 'off (BENCH_TRACING=0).',
  ].join('\n');
  process.stdout.write(`\nMachine: ${machineLine}\n\n${table}\n\n${notes}\n`);
  if (prof) {
    log(`${RESULTS} not written: a profiled run`);
    return;
  }
  writeResultsFile(RESULTS, 'Benchmark: the default agent end to end (`npm run bench:agent`)', machineLine, [
    table,
    notes,
  ]);
  log(`wrote ${RESULTS}`);
}

main().catch((err: Error) => {
  process.stderr.write(`bench:agent: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
