// `npm run bench:nodes`: where the time inside a node goes — the default agent's LLM loop (the
// main bench's N=20 run), one run at a time, every span of the stack collected over OTLP/HTTP.
// Per node: the time the node service stamps on its action (task taken → the node's code
// returned), the node's span, the model calls' and tools' spans within it, and the orchestrator's
// step span that applied it. Environment: BENCH_REPS (5).
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { TestStack } from '@switchyard/testing';
import { describeMachine, machine } from './machine';
import { writeResultsFile } from './results-file';
import { runToEnd } from './run-to-end';
import { markdownTable } from './stats';

const SCRIPT = 'tools/bench/fixtures/bench.script.json';
const PROMPT = '[bench] loop';
const RESULTS = resolve(__dirname, '..', '..', '..', '..', 'tools', 'bench', 'NODES-RESULTS.md');
const WARMUP = 2;

const log = (msg: string) => process.stderr.write(`[bench:nodes] ${msg}\n`);

interface Span {
  name: string;
  service: string;
  spanId: string;
  parentSpanId?: string;
  ms: number;
  attrs: Record<string, unknown>;
}

type OtlpValue = Record<string, unknown>;
interface OtlpSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: { key: string; value?: OtlpValue }[];
}
interface OtlpBody {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value?: OtlpValue }[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

const valueOf = (v: OtlpValue | undefined): unknown => (v ? Object.values(v)[0] : undefined);

/** An OTLP/HTTP (JSON) endpoint that keeps the spans it is sent. */
async function collector(spans: Span[]): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as OtlpBody;
      for (const rs of body.resourceSpans ?? []) {
        const service = String(
          valueOf(rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value),
        );
        for (const s of (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? [])) {
          spans.push({
            name: s.name,
            service: service.replace(/^switchyard-/, ''),
            spanId: s.spanId,
            ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
            ms: Number(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)) / 1e6,
            attrs: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
          });
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function oneRun(stack: TestStack): Promise<{ node: string; task_id?: string; ms: number }[]> {
  const runId = await runToEnd(stack, PROMPT, 120_000);
  const tasks = await stack.sql<{ node: string; task_id: string; started: string; finished: string }>(
    `SELECT node, task_id::text, delta->'action'->>'started_at' AS started, delta->'action'->>'finished_at' AS finished
     FROM state_deltas WHERE run_id = $1 ORDER BY version`,
    [runId],
  );
  return tasks.map((t) => ({
    node: t.node,
    task_id: t.task_id,
    ms: Date.parse(t.finished) - Date.parse(t.started),
  }));
}

const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
const fmt = (ms: number): string => (Number.isNaN(ms) ? '—' : `${ms.toFixed(2)} ms`);

async function main(): Promise<void> {
  const reps = Math.floor(Number(process.env['BENCH_REPS'] ?? 5));
  const m = machine();
  const loadBefore = loadavg()[0];
  const spans: Span[] = [];
  const otlp = await collector(spans);
  const stack = await TestStack.start({
    script: SCRIPT,
    env: {
      SWITCHYARD_DEFAULT_MAX_STEPS: '1000',
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '200',
    },
  });
  const actions: { node: string; task_id?: string; ms: number }[] = [];
  try {
    for (let i = 0; i < WARMUP; i++) {
      await oneRun(stack);
    }
    await new Promise((r) => setTimeout(r, 1500));
    spans.length = 0;
    for (let i = 1; i <= reps; i++) {
      actions.push(...(await oneRun(stack)));
      log(`#${i}: ${actions.length} actions so far`);
    }
    await new Promise((r) => setTimeout(r, 1500)); // the last spans' export
  } finally {
    await stack.stop();
    otlp.server.close();
  }
  const nodes = [...new Set(actions.map((a) => a.node))];
  const spansOf = (node: string, names: (s: Span) => boolean) => {
    const ids = new Set(actions.filter((a) => a.node === node).map((a) => a.task_id));
    return spans.filter((s) => names(s) && ids.has(String(s.attrs['task_id'] ?? '')));
  };
  // A node's model calls and tools are descendants of its span: the nearest `node …` span above.
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const under = (span: Span, nodeSpans: Set<string>): boolean => {
    for (let p = span.parentSpanId ? byId.get(span.parentSpanId) : undefined; p;) {
      if (p.name.startsWith('node ')) {
        return nodeSpans.has(p.spanId);
      }
      p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined;
    }
    return false;
  };
  const within = (node: string, prefix: string) => {
    const ids = new Set(spansOf(node, (s) => s.name === `node ${node}`).map((s) => s.spanId));
    const total = spans
      .filter((s) => s.name.startsWith(prefix) && under(s, ids))
      .reduce((a, s) => a + s.ms, 0);
    return total / Math.max(1, actions.filter((a) => a.node === node).length);
  };
  const rows = nodes.map((node) => {
    const inside = mean(actions.filter((a) => a.node === node).map((a) => a.ms));
    const llm = within(node, 'llm ');
    const tool = within(node, 'tool ');
    return [
      node,
      String(actions.filter((a) => a.node === node).length / reps),
      fmt(inside),
      fmt(mean(spansOf(node, (s) => s.name === `node ${node}`).map((s) => s.ms))),
      fmt(llm),
      fmt(tool),
      node === 'start' ? '—' : fmt(inside - llm - tool),
      fmt(mean(spansOf(node, (s) => s.name === `step ${node}`).map((s) => s.ms))),
    ];
  });
  const machineLine = describeMachine(m, [`1-minute load average before the run ${loadBefore.toFixed(2)}`]);
  const table = markdownTable(
    [
      'node',
      'actions per run',
      'inside the node (its action)',
      'node span',
      'model calls',
      'tools',
      'inside, around the calls',
      'orchestrator step',
    ],
    rows,
  );
  const notes = [
    `The main bench's LLM loop (\`${PROMPT}\`: the default agent, 20 calculator rounds against the scripted`,
    `model server), one run at a time, ${reps} runs after ${WARMUP} unmeasured, tracing on: every service's spans`,
    'collected over OTLP/HTTP (JSON) in this process; means per action. "Inside the node": the action\'s',
    "finished_at − started_at (task taken → the node's code returned: what the main bench calls time inside the",
    'nodes). "Node span": the node service\'s span of the task (its delta\'s publish and PubAck too). "Model',
    'calls": the spans of its LLM calls (request to the reply, before metering); "tools": its tool spans.',
    '"Around the calls": inside − model calls − tools (the task start in Redis, the state, prompts and',
    'parsing, the registry revision read, metering). "Orchestrator step": the span of the step that applied',
    "the node's delta (the wait for its group, the transaction, the publishes that follow).",
  ].join('\n');
  process.stdout.write(`\nMachine: ${machineLine}\n\n${table}\n\n${notes}\n`);
  writeResultsFile(
    RESULTS,
    'Benchmark: where the time inside a node goes (`npm run bench:nodes`)',
    machineLine,
    [table, notes],
  );
  log(`wrote ${RESULTS}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
