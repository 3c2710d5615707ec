import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type pg from 'pg';
import {
  SERVICE_APPS,
  type ServiceApp,
  type TestStack,
  freePort,
  readSse,
  waitFor,
} from '@switchyard/testing';
import { CpuMeter, rss } from './proc';
import { ScratchDatabase } from './scratch-db';

/**
 * The pure-runtime loop: intake → planner → tool → reflection → planner …, k tool rounds, then
 * the planner ends the run; every node returns at once with a ~1 KB random result, no LLM. What a
 * step costs here is the runtime's alone: dispatch, checkpoint, state, events.
 */

const ROOT = resolve(__dirname, '..', '..', '..', '..');

/** Bytes of random payload per action: ~1 KB once base64-encoded, incompressible. */
const PAYLOAD_BYTES = 768;

/** The prompt tools/bench-nodes reads the round count from (its runtime-loop.ts parses it). */
const prompt = (rounds: number) => `[runtime-loop] rounds=${rounds}`;

/** Tool rounds of a run of `steps` Switchyard steps: start, intake, 3 per round, the last planner. */
export function roundsFor(steps: number): number {
  const rounds = (steps - 3) / 3;
  if (!Number.isInteger(rounds) || rounds < 0) {
    throw new Error(`a runtime-loop run has 3 + 3k steps, not ${steps}`);
  }
  return rounds;
}

/** One loop run, measured. */
export interface LoopSample {
  wallMs: number;
  steps: number;
  /** CPU (user+sys) of the system's processes during the run, in ms. */
  cpuMs: number;
  /** Time from one step's end to the next one's, per step: the whole cost of a step here. */
  stepMs: number[];
  /** `cpuMs` by process (Switchyard: service names, nats, redis, postgres). */
  cpuBy?: Map<string, number>;
}

export interface LoopConcurrentSample {
  totalMs: number;
  steps: number;
  cpuMs: number;
  cpuBy?: Map<string, number>;
  /** Peak resident memory per process while the runs ran. */
  peakRss: Map<string, number>;
}

/** The services the loop runs on: the planner's and reflection's nodes are tools/bench-nodes'. */
const LOOP_SERVICES = SERVICE_APPS.filter((a) => a !== 'planner' && a !== 'reflection');

/** Switchyard with tools/bench-nodes serving the loop's nodes. */
export class SwitchyardLoop {
  private constructor(
    private readonly stack: TestStack,
    private readonly nodes: ChildProcess,
    private readonly cpu: CpuMeter,
  ) {}

  /**
   * Stops the planner and reflection services (their nodes' names are the loop's) and starts
   * tools/bench-nodes in their place, with the stack's settings.
   */
  static async start(stack: TestStack, nodeArgs: string[]): Promise<SwitchyardLoop> {
    await stack.stopService('planner');
    await stack.stopService('reflection');
    const port = await freePort();
    const out = createWriteStream(join(stack.dir, 'bench-nodes.log'), { flags: 'a' });
    const child = spawn(
      process.execPath,
      ['--enable-source-maps', ...nodeArgs, join(ROOT, 'dist/tools/bench-nodes/src/main.js')],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          ...stack.serviceEnv,
          PORT: String(port),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    await waitFor(
      'bench-nodes /readyz',
      async () => {
        if (child.exitCode !== null) {
          throw new Error(
            `bench-nodes exited with ${child.exitCode} (log: ${join(stack.dir, 'bench-nodes.log')})`,
          );
        }
        return (await fetch(`http://127.0.0.1:${port}/readyz`)).ok;
      },
      60_000,
    );
    const loop: SwitchyardLoop = new SwitchyardLoop(
      stack,
      child,
      new CpuMeter(
        () => loop.pids(),
        // Every pid that is not one of the stack's own is a backend of its database.
        (pid) => [...loop.processes()].find(([, p]) => p === pid)?.[0] ?? 'postgres',
      ),
    );
    return loop;
  }

  /** Every process of the system: services, bench-nodes, NATS, Redis and the database's backends. */
  async pids(): Promise<number[]> {
    const own = [...this.processes().values()];
    const backends = await this.stack.sql<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return [...own, ...backends.map((b) => b.pid)];
  }

  /** The stack's own processes by name (Postgres is shared with other databases: its backends apart). */
  processes(): Map<string, number> {
    const m = new Map<string, number>();
    for (const name of [...LOOP_SERVICES, 'nats', 'redis'] as (ServiceApp | 'nats' | 'redis')[]) {
      const pid = this.stack.pid(name);
      if (pid) {
        m.set(name, pid);
      }
    }
    if (this.nodes.pid) {
      m.set('bench-nodes', this.nodes.pid);
    }
    return m;
  }

  async run(steps: number): Promise<LoopSample> {
    await this.cpu.start();
    const started = await this.execute(steps);
    const cpuMs = await this.cpu.stop();
    const cpuBy = this.cpu.breakdown;
    return { ...(await this.verify(started, steps)), cpuMs, cpuBy };
  }

  async concurrent(steps: number, count: number): Promise<LoopConcurrentSample> {
    const peakRss = new Map<string, number>();
    const sample = () => {
      for (const [name, pid] of this.processes()) {
        peakRss.set(name, Math.max(peakRss.get(name) ?? 0, rss(pid) || 0));
      }
    };
    const timer = setInterval(sample, 200);
    await this.cpu.start();
    const t0 = performance.now();
    try {
      const started = await Promise.all(Array.from({ length: count }, () => this.execute(steps)));
      const totalMs = performance.now() - t0;
      const cpuMs = await this.cpu.stop();
      const cpuBy = this.cpu.breakdown;
      // The bench's own checks of each run, outside the time and CPU measured.
      const results = await Promise.all(started.map((r) => this.verify(r, steps)));
      return {
        totalMs,
        steps: results.reduce((n, r) => n + r.steps, 0),
        cpuMs,
        cpuBy,
        peakRss,
      };
    } finally {
      clearInterval(timer);
    }
  }

  async stop(): Promise<void> {
    if (this.nodes.exitCode === null) {
      const exited = new Promise((r) => this.nodes.once('exit', r));
      this.nodes.kill('SIGTERM');
      await exited;
    }
  }

  /** A run from its POST to the end of its event stream: what is measured. */
  private async execute(steps: number): Promise<{ runId: string; wallMs: number }> {
    const t0 = performance.now();
    const created = await this.stack.api('POST', '/v1/runs', { input: { prompt: prompt(roundsFor(steps)) } });
    if (created.status !== 202 || typeof created.body?.run_id !== 'string') {
      throw new Error(`POST /v1/runs answered ${created.status}: ${JSON.stringify(created.body)}`);
    }
    const runId = created.body.run_id as string;
    await readSse(`${this.stack.gatewayUrl}/v1/runs/${runId}/events`, {
      headers: { Authorization: `Bearer ${this.stack.key}` },
      timeoutMs: 600_000,
    });
    return { runId, wallMs: performance.now() - t0 };
  }

  /** The run succeeded with the steps it should have; its step times (read after the measure). */
  private async verify(
    { runId, wallMs }: { runId: string; wallMs: number },
    steps: number,
  ): Promise<Omit<LoopSample, 'cpuMs'>> {
    const run = await this.stack.api('GET', `/v1/runs/${runId}`);
    if (run.body?.status !== 'succeeded') {
      throw new Error(
        `loop run ${runId} ended ${String(run.body?.status)}: ${JSON.stringify(run.body?.error)}`,
      );
    }
    const actions = ((await this.stack.api('GET', `/v1/runs/${runId}/actions`)).body?.actions ?? []) as {
      finished_at: string;
    }[];
    if (actions.length !== steps) {
      throw new Error(`loop run ${runId}: expected ${steps} steps, got ${actions.length}`);
    }
    // When each step's transaction began (state_deltas.created_at: now(), in microseconds) — the
    // actions' finished_at is whole milliseconds, too coarse for a p50 of 2 ms.
    const logged = await this.stack.sql<{ ms: number }>(
      'SELECT (extract(epoch FROM created_at) * 1000)::float8 AS ms FROM state_deltas WHERE run_id = $1 ORDER BY version',
      [runId],
    );
    if (logged.length !== steps) {
      throw new Error(`loop run ${runId}: expected ${steps} logged deltas, got ${logged.length}`);
    }
    const ends = logged.map((r) => r.ms);
    return { wallMs, steps: actions.length, stepMs: ends.slice(1).map((t, i) => t - ends[i]) };
  }
}

interface LoopAction {
  node: string;
  result: { data: string };
  next: string[];
}

const LoopState = Annotation.Root({
  rounds: Annotation<number>(),
  actions: Annotation<LoopAction[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});
type LoopStateT = typeof LoopState.State;

function loopAction(node: string, next: string[]): { actions: LoopAction[] } {
  return { actions: [{ node, result: { data: randomBytes(PAYLOAD_BYTES).toString('base64') }, next }] };
}

/** LangGraph.js with PostgresSaver (a fresh database), the same loop graph, in this process. */
export class LangGraphLoop {
  private readonly ends = new Map<string, number[]>();
  private readonly graph;

  private constructor(
    private readonly saver: PostgresSaver,
    private readonly pool: pg.Pool,
    private readonly db: ScratchDatabase,
  ) {
    const mark = (config: { configurable?: { thread_id?: string } } | undefined) => {
      const id = String(config?.configurable?.thread_id);
      this.ends.set(id, [...(this.ends.get(id) ?? []), performance.now()]);
    };
    const node =
      (fn: (s: LoopStateT) => { actions: LoopAction[] }) =>
      (s: LoopStateT, config?: { configurable?: { thread_id?: string } }) => {
        const out = fn(s);
        mark(config);
        return out;
      };
    const tools = (s: LoopStateT) => s.actions.filter((a) => a.node === 'tool').length;
    this.graph = new StateGraph(LoopState)
      .addNode(
        'intake',
        node(() => loopAction('intake', ['planner'])),
      )
      .addNode(
        'planner',
        node((s) => loopAction('planner', tools(s) < s.rounds ? ['tool'] : [])),
      )
      .addNode(
        'tool',
        node(() => loopAction('tool', ['reflection'])),
      )
      .addNode(
        'reflection',
        node(() => loopAction('reflection', ['planner'])),
      )
      .addEdge(START, 'intake')
      .addEdge('intake', 'planner')
      .addConditionalEdges(
        'planner',
        (s: LoopStateT) => (s.actions.at(-1)?.next[0] === 'tool' ? 'tool' : END),
        ['tool', END],
      )
      .addEdge('tool', 'reflection')
      .addEdge('reflection', 'planner')
      .compile({ checkpointer: this.saver });
  }

  static async create(postgresUrl: string): Promise<LangGraphLoop> {
    const db = await ScratchDatabase.create(postgresUrl, 'switchyard_bench_lgloop');
    const loop = new LangGraphLoop(new PostgresSaver(db.pool()), db.pool(1), db);
    try {
      await loop.saver.setup();
    } catch (err) {
      await loop.close();
      throw err;
    }
    return loop;
  }

  /** This process and the database's backends: LangGraph runs in-process. */
  private async pids(): Promise<number[]> {
    const { rows } = await this.pool.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return [process.pid, ...rows.map((r) => r.pid)];
  }

  async run(steps: number): Promise<LoopSample> {
    const cpu = new CpuMeter(() => this.pids());
    await cpu.start();
    const r = await this.execute(steps);
    return { ...r, cpuMs: await cpu.stop() };
  }

  async concurrent(steps: number, count: number): Promise<LoopConcurrentSample> {
    const cpu = new CpuMeter(() => this.pids());
    const peak = { rss: 0 };
    const timer = setInterval(() => {
      peak.rss = Math.max(peak.rss, process.memoryUsage().rss);
    }, 200);
    await cpu.start();
    const t0 = performance.now();
    try {
      const results = await Promise.all(Array.from({ length: count }, () => this.execute(steps)));
      const totalMs = performance.now() - t0;
      return {
        totalMs,
        steps: results.reduce((n, r) => n + r.steps, 0),
        cpuMs: await cpu.stop(),
        peakRss: new Map([['bench process (LangGraph)', peak.rss]]),
      };
    } finally {
      clearInterval(timer);
    }
  }

  /** `steps` is Switchyard's count; LangGraph's run of the same rounds has no `start` step. */
  private async execute(steps: number): Promise<Omit<LoopSample, 'cpuMs'>> {
    const rounds = roundsFor(steps);
    const threadId = `loop-${randomBytes(8).toString('hex')}`;
    const t0 = performance.now();
    let n = 0;
    for await (const chunk of await this.graph.stream(
      { rounds },
      { configurable: { thread_id: threadId }, recursionLimit: 10_000, streamMode: 'updates' },
    )) {
      n += Object.keys(chunk as Record<string, unknown>).length;
    }
    const wallMs = performance.now() - t0;
    const ends = this.ends.get(threadId) ?? [];
    this.ends.delete(threadId);
    if (n !== steps - 1) {
      throw new Error(`LangGraph loop: expected ${steps - 1} steps, got ${n}`);
    }
    return { wallMs, steps: n, stepMs: ends.slice(1).map((t, i) => t - ends[i]) };
  }

  async close(): Promise<void> {
    await this.saver.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
    await this.db.drop();
  }
}
