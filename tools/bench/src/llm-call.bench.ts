// One model call, five ways (#29 "lean LLM nodes"): langchain's ChatOpenAI alone (what a
// LangGraph.js node does), the same request through the model registry without a tenant (model
// resolution, the registry's revision — read before every call with lease 0, else once a lease —,
// key choice, the wrapper's langchain layer), and through the registry for a tenant (plus the
// budget check and the metering write a call outside a task awaits), and as a node's call makes it
// (the row kept for the task's delta). Same scripted model server, same messages
// and tool, one call at a time, in this process: wall time and this process's CPU per call. What
// separates the rows is what the registry adds to a call.
// Usage: npm run bench:llm-call. Environment: BENCH_CALLS (300 per measurement), BENCH_REPS (5,
// medians). Prints a markdown table and writes tools/bench/LLM-CALL-RESULTS.md.
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { DEV_SECRET_KEY } from '@switchyard/config';
import {
  type LlmCallContext,
  createChatModels,
  TaskCalls,
  registryEnvSchema,
  runWithLlmCallContext,
} from '@switchyard/models';
import { createDataSource, runMigrationsLocked } from '@switchyard/persistence';
import { ScriptedLlmProcess } from '@switchyard/testing';
import { describeMachine, machine } from './machine';
import { writeResultsFile } from './results-file';
import { ScratchDatabase } from './scratch-db';
import { fmtMs, markdownTable, median } from './stats';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const RESULTS = join(ROOT, 'tools', 'bench', 'LLM-CALL-RESULTS.md');
const WARMUP_CALLS = 50;

const log = (msg: string) => process.stderr.write(`[bench:llm-call] ${msg}\n`);

const CALCULATOR = {
  type: 'function' as const,
  function: {
    name: 'calculator',
    description: 'Evaluates an arithmetic expression.',
    parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
  },
};
const messages = () => [
  new SystemMessage('You are the planner. Decide the next tool call, or answer. '.repeat(8)),
  new HumanMessage('what is 2+3*4?'),
];

interface Cell {
  wallMs: number;
  cpuMs: number;
}

async function measure(calls: number, call: () => Promise<unknown>): Promise<Cell> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) {
    await call();
  }
  const wall = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { wallMs: wall / calls, cpuMs: (used.user + used.system) / 1000 / calls };
}

async function main(): Promise<void> {
  const calls = Math.floor(Number(process.env['BENCH_CALLS'] ?? 300));
  const reps = Math.floor(Number(process.env['BENCH_REPS'] ?? 5));
  if (!(calls >= 1) || !(reps >= 1)) {
    throw new Error('BENCH_CALLS and BENCH_REPS must be positive');
  }
  const m = machine();
  const loadBefore = loadavg()[0];
  log(`machine: ${describeMachine(m)}; load average ${loadBefore.toFixed(2)}`);
  const llm = await ScriptedLlmProcess.start({
    rules: [
      {
        name: 'tool',
        when: { has_tools: true },
        reply: {
          tool_calls: [{ name: 'calculator', arguments: { expression: '2+3*4' } }],
          usage: { prompt_tokens: 120, completion_tokens: 12 },
        },
      },
    ],
  });
  const db = await ScratchDatabase.create(
    process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    'bench_llm_call',
  );
  const ds = await createDataSource(db.url, { poolSize: 4, name: 'bench-llm-call' });
  try {
    await runMigrationsLocked(ds);
    // The services' defaults (the registry copy lives 5 s, a revision read stands for the calls of
    // the next SWITCHYARD_MODEL_REGISTRY_LEASE_MS), and the revision read before every call (lease 0).
    const modelsWith = (lease: number) =>
      createChatModels(ds, {
        llm: {
          SWITCHYARD_LLM_BASE_URL: llm.url,
          SWITCHYARD_LLM_API_KEY: 'bench-key',
          SWITCHYARD_LLM_MODEL: 'scripted',
          SWITCHYARD_LLM_TIMEOUT_MS: 10_000,
          SWITCHYARD_LLM_MAX_RETRIES: 0,
        },
        registry: {
          SWITCHYARD_MODEL_REGISTRY_TTL_MS: 5_000,
          SWITCHYARD_MODEL_REGISTRY_LEASE_MS: lease,
          SWITCHYARD_LLM_COOLDOWN_MS: 5_000,
          SWITCHYARD_LLM_MAX_WAIT_MS: 10_000,
        },
        secretKey: DEV_SECRET_KEY,
      });
    const lease = registryEnvSchema.shape.SWITCHYARD_MODEL_REGISTRY_LEASE_MS.parse(undefined);
    const models = modelsWith(lease);
    const everyCall = modelsWith(0);
    await models.router.store.ensureSeeded();
    const [tenant] = (await ds.query(`INSERT INTO tenants (name) VALUES ('bench') RETURNING id`)) as {
      id: string;
    }[];
    const direct = new ChatOpenAI({
      model: 'scripted',
      apiKey: 'bench-key',
      configuration: { baseURL: llm.url },
      maxRetries: 0,
      streamUsage: true,
      temperature: 0,
    }).bindTools([CALCULATOR]);
    // Outside a run (the tenant given up front, as for calls outside runs): a run's scope is read
    // once per run and cached, so leaving it out leaves out nothing a run's later calls pay.
    const ctx = (tenantId?: string) =>
      ({
        ...(tenantId ? { tenant_id: tenantId } : {}),
        task_id: randomUUID(),
        node: 'planner',
        attempt: 1,
      }) as LlmCallContext;
    let carried = 0;
    const metered = async () =>
      Number(((await ds.query('SELECT count(*) AS n FROM model_usage')) as { n: string }[])[0].n);
    const viaRegistry =
      (tenantId?: string, through = models) =>
      () =>
        runWithLlmCallContext(ctx(tenantId), () =>
          through.chat({ role: 'planner' }).bindTools([CALCULATOR]).invoke(messages()),
        );
    const variants: [string, () => Promise<unknown>][] = [
      ['ChatOpenAI alone (a LangGraph.js node)', () => direct.invoke(messages())],
      [
        'through the registry, no tenant, revision read per call (lease 0)',
        viaRegistry(undefined, everyCall),
      ],
      [`through the registry, no tenant (lease ${lease} ms; not metered)`, viaRegistry()],
      ['through the registry for a tenant (budget, metering)', viaRegistry(tenant.id)],
      [
        "… in a task (budget; the row kept for the task's delta)",
        async () => {
          const calls = new TaskCalls();
          await runWithLlmCallContext({ ...ctx(tenant.id), calls }, () =>
            models.chat({ role: 'planner' }).bindTools([CALCULATOR]).invoke(messages()),
          );
          carried += (await calls.take()).length;
        },
      ],
    ];
    const cells = new Map<string, Cell[]>(variants.map(([name]) => [name, []]));
    for (const [, call] of variants) {
      await measure(WARMUP_CALLS, call);
    }
    for (let rep = 1; rep <= reps; rep++) {
      // The variants take turns in every repetition, so the machine's drift hits them alike.
      for (const [name, call] of variants) {
        cells.get(name)!.push(await measure(calls, call));
      }
      log(`rep ${rep}/${reps} done`);
    }
    // Every call for the tenant was metered (a failing write is only logged: it would flatter the row).
    const written = await metered();
    if (written !== WARMUP_CALLS + reps * calls || carried !== WARMUP_CALLS + reps * calls) {
      throw new Error(
        `metered ${written} calls and kept ${carried} for deltas, expected ${WARMUP_CALLS + reps * calls} each`,
      );
    }
    const [base] = variants;
    const baseWall = median(cells.get(base[0])!.map((c) => c.wallMs));
    const baseCpu = median(cells.get(base[0])!.map((c) => c.cpuMs));
    const rows = variants.map(([name]) => {
      const wall = median(cells.get(name)!.map((c) => c.wallMs));
      const cpu = median(cells.get(name)!.map((c) => c.cpuMs));
      return [
        name,
        fmtMs(wall),
        `×${(wall / baseWall).toFixed(2)}`,
        fmtMs(cpu),
        `+${fmtMs(Math.max(0, cpu - baseCpu))}`,
      ];
    });
    const table = markdownTable(
      [
        'one model call (tool offered, tool call back)',
        'wall per call',
        '÷ alone',
        'CPU per call',
        'CPU added',
      ],
      rows,
    );
    const notes = [
      `Medians of ${reps} measurements of ${calls} calls each (after ${WARMUP_CALLS} unmeasured calls of each),`,
      'the variants taking turns; one call at a time, in the benchmark process, against the scripted model',
      "server (tools/scripted-llm) over HTTP; CPU is this process's user+sys (the model server and Postgres",
      'left out). "Through the registry": `ChatModels.chat({role}).bindTools(…).invoke(…)` inside an LLM call',
      "context, as a node calls it: model resolution, the registry's revision known as of the call's start (a",
      'revoked key is never used after the revoke returns: read before every call with lease 0, else a read',
      'stands for the calls of the lease after it), key choice and the vendor client; "for a tenant" adds the',
      "tenant's budget check (cached: no budget) and the metering write the call awaits (model_usage row and",
      'the tenant\'s tokens_used, one commit). "In a task": as a node\'s call makes it (TaskCalls): the row is',
      "kept for the task's delta, and the orchestrator writes it in the step's transaction (not in this row).",
    ].join('\n');
    process.stdout.write(`\n${table}\n\n${notes}\n`);
    writeResultsFile(
      RESULTS,
      'Benchmark: one model call, alone and through the registry (`npm run bench:llm-call`)',
      `${describeMachine(m)}; 1-minute load average before the run ${loadBefore.toFixed(2)}`,
      [table, notes],
    );
    log(`wrote ${RESULTS}`);
  } finally {
    await ds.destroy();
    await db.drop();
    await llm.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
