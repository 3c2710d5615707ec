// Storage benchmark: Postgres bytes a thread holds after 100 turns (one run each, the default
// agent's calculator flow through all seven services), with the history kept and with history
// retention compacting it. Bytes are the thread's rows (pg_column_size) in state_deltas,
// state_snapshots, run_tasks, tool_outputs, tool_receipts and runs. Prints a markdown table and
// writes tools/bench/STORAGE-RESULTS.md.
// Usage: node tools/scripts/build.mjs && node dist/tools/bench/src/storage.bench.js (BENCH_TURNS=100)
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TestStack, waitFor } from '@switchyard/testing';
import { describeMachine, machine } from './machine';
import { fmtMs, markdownTable } from './stats';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const TURNS = Number(process.env['BENCH_TURNS'] ?? 100);
const SCRIPT = 'tools/bench/fixtures/bench.script.json';
const TABLES = [
  'state_deltas',
  'state_snapshots',
  'run_tasks',
  'tool_outputs',
  'tool_receipts',
  'runs',
] as const;

interface Measure {
  label: string;
  bytes: Record<(typeof TABLES)[number], number>;
  rows: Record<(typeof TABLES)[number], number>;
  wallMs: number;
}

const log = (msg: string) => process.stderr.write(`[storage-bench] ${msg}\n`);

async function turns(stack: TestStack): Promise<string> {
  let threadId: string | undefined;
  for (let i = 0; i < TURNS; i++) {
    const res = await stack.api('POST', '/v1/runs', {
      input: { prompt: `what is ${i + 2}*${i + 3}?` },
      ...(threadId ? { thread_id: threadId } : {}),
    });
    if (res.status !== 202) {
      throw new Error(`turn ${i}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    threadId = res.body.thread_id as string;
    await waitFor(
      `turn ${i}`,
      async () => {
        const status = (await stack.api('GET', `/v1/runs/${res.body.run_id}`)).body.status as string;
        if (status === 'failed' || status === 'cancelled') {
          throw new Error(`turn ${i} ended ${status}`);
        }
        return status === 'succeeded';
      },
      60_000,
      20,
    );
  }
  return threadId as string;
}

async function measure(
  label: string,
  env: Record<string, string>,
  settle?: (s: TestStack, t: string) => Promise<void>,
): Promise<Measure> {
  log(`${label}: starting the stack`);
  const stack = await TestStack.start({
    script: SCRIPT,
    env: { LOG_LEVEL: 'warn', ...env },
  });
  try {
    const t0 = performance.now();
    const threadId = await turns(stack);
    const wallMs = performance.now() - t0;
    await settle?.(stack, threadId);
    const bytes = {} as Measure['bytes'];
    const rows = {} as Measure['rows'];
    for (const table of TABLES) {
      const where =
        table === 'state_deltas' || table === 'state_snapshots' || table === 'runs'
          ? 'x.thread_id = $1'
          : 'x.run_id IN (SELECT id FROM runs WHERE thread_id = $1)';
      const [r] = await stack.sql<{ b: string | null; n: string }>(
        `SELECT sum(pg_column_size(x.*)) AS b, count(*) AS n FROM ${table} x WHERE ${where}`,
        [threadId],
      );
      bytes[table] = Number(r.b ?? 0);
      rows[table] = Number(r.n);
    }
    log(`${label}: ${TURNS} turns in ${fmtMs(wallMs)}`);
    return { label, bytes, rows, wallMs };
  } finally {
    await stack.stop();
  }
}

const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;

async function main(): Promise<void> {
  const kept = await measure('history kept (defaults)', {});
  const compacted = await measure(
    'history retention 1 s',
    {
      SWITCHYARD_RETENTION_HOURS: '0.0003',
      SWITCHYARD_HISTORY_RETENTION_HOURS: '0.0003',
      SWITCHYARD_RETENTION_INTERVAL_MS: '500',
    },
    async (stack, threadId) => {
      await waitFor(
        'the retention pass',
        async () =>
          Number(
            (
              await stack.sql<{ n: string }>('SELECT count(*) AS n FROM state_deltas WHERE thread_id = $1', [
                threadId,
              ])
            )[0].n,
          ) === 0,
        30_000,
      );
    },
  );
  const header = ['', ...TABLES, 'total'];
  const rowOf = (m: Measure): string[] => {
    const total = TABLES.reduce((s, t) => s + m.bytes[t], 0);
    return [m.label, ...TABLES.map((t) => `${kib(m.bytes[t])} (${m.rows[t]})`), kib(total)];
  };
  const out = [
    `# Postgres bytes per thread after ${TURNS} turns`,
    '',
    `Machine: ${describeMachine(machine())}. One thread, ${TURNS} runs of the default agent's calculator flow (8 actions each); bytes are pg_column_size of the thread's rows (row count in parentheses), indexes and TOAST overhead not included.`,
    '',
    markdownTable(header, [rowOf(kept), rowOf(compacted)]),
    '',
    'Snapshots are written every SWITCHYARD_SNAPSHOT_EVERY versions and at most SWITCHYARD_SNAPSHOT_KEEP are kept; until #17 a',
    "snapshot of the whole state was also written at every run's end (here: 100 snapshots, growing with the thread).",
    'With history retention the thread is one snapshot plus its run rows; finished runs lose their task rows.',
    '',
  ].join('\n');
  process.stdout.write(`${out}\n`);
  writeFileSync(join(ROOT, 'tools', 'bench', 'STORAGE-RESULTS.md'), out);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
