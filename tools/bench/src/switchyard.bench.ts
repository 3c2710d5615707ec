import { performance } from 'node:perf_hooks';
import { readSse, type TestStack } from '@switchyard/testing';
import type { ConcurrentSample, RunSample } from './types';

export interface SwitchyardRunOptions {
  prompt: string;
  /** Expected calculator actions: a run with another count is an error. */
  rounds: number;
}

/**
 * Switchyard through its gateway: POST /v1/runs, then the run's SSE stream until `done`. The runs'
 * agent is the default agent offering the calculator alone (LangGraph.js's planner binds that one
 * tool): the default agent offers every registered tool, six more JSON schemas (~7 KB) in each
 * planner request — not the same model requests.
 */
export class SwitchyardBench {
  private agentId: Promise<string> | undefined;

  constructor(private readonly stack: TestStack) {}

  private agent(): Promise<string> {
    this.agentId ??= this.stack
      .api('POST', '/v1/agents', {
        name: `bench-calculator-${Date.now()}`,
        tools: ['calculator'],
        max_steps: 1000,
      })
      .then((res) => {
        if (res.status !== 201 || typeof res.body?.id !== 'string') {
          throw new Error(`POST /v1/agents answered ${res.status}: ${JSON.stringify(res.body)}`);
        }
        return res.body.id as string;
      });
    return this.agentId;
  }

  /** One run on a new thread: wall time from the POST to the end of its event stream. */
  async run(opts: SwitchyardRunOptions): Promise<RunSample> {
    const { runId, threadId, wallMs, nodeMs, steps } = await this.verify(await this.execute(opts), opts);
    const deltas = await this.stack.sql<{ node: string; bytes: number }>(
      'SELECT node, pg_column_size(delta) AS bytes FROM state_deltas WHERE run_id = $1 ORDER BY version',
      [runId],
    );
    const [other] = await this.stack.sql<{ tasks: string | null; snapshots: string | null }>(
      `SELECT (SELECT sum(pg_column_size(delta)) FROM run_tasks WHERE run_id = $1) AS tasks,
              (SELECT sum(pg_column_size(state)) FROM state_snapshots WHERE thread_id = $2) AS snapshots`,
      [runId, threadId],
    );
    const tools = deltas.filter((d) => d.node === 'calculator');
    return {
      wallMs,
      nodeMs,
      steps,
      bytes: deltas.reduce((n, d) => n + Number(d.bytes), 0),
      firstToolBytes: Number(tools[0]?.bytes ?? Number.NaN),
      lastToolBytes: Number(tools[tools.length - 1]?.bytes ?? Number.NaN),
      otherBytes: Number(other?.tasks ?? 0) + Number(other?.snapshots ?? 0),
    };
  }

  /** `count` runs started at once, each on its own thread. */
  async concurrent(opts: SwitchyardRunOptions, count: number): Promise<ConcurrentSample> {
    const t0 = performance.now();
    const started = await Promise.all(Array.from({ length: count }, () => this.execute(opts)));
    const totalMs = performance.now() - t0;
    // The bench's own checks of each run, after the time measured.
    const results = await Promise.all(started.map((r) => this.verify(r, opts)));
    return {
      totalMs,
      runs: count,
      steps: results.reduce((n, r) => n + r.steps, 0),
      latenciesMs: results.map((r) => r.wallMs),
    };
  }

  /** A run from its POST to the end of its event stream: what is measured. */
  private async execute(
    opts: SwitchyardRunOptions,
  ): Promise<{ runId: string; threadId: string; wallMs: number }> {
    const agentId = await this.agent();
    const t0 = performance.now();
    const created = await this.stack.api('POST', '/v1/runs', {
      input: { prompt: opts.prompt },
      agent_id: agentId,
    });
    if (created.status !== 202 || typeof created.body?.run_id !== 'string') {
      throw new Error(`POST /v1/runs answered ${created.status}: ${JSON.stringify(created.body)}`);
    }
    const runId = created.body.run_id as string;
    const threadId = created.body.thread_id as string;
    await readSse(`${this.stack.gatewayUrl}/v1/runs/${runId}/events`, {
      headers: { Authorization: `Bearer ${this.stack.key}` },
      timeoutMs: 300_000,
    });
    return { runId, threadId, wallMs: performance.now() - t0 };
  }

  /** The run succeeded with the expected rounds; its time inside the nodes (read after the measure). */
  private async verify(
    { runId, threadId, wallMs }: { runId: string; threadId: string; wallMs: number },
    opts: SwitchyardRunOptions,
  ) {
    const run = await this.stack.api('GET', `/v1/runs/${runId}`);
    const status = String(run.body?.status);
    if (status !== 'succeeded') {
      throw new Error(
        `Switchyard run ${runId} ended ${status}: ${JSON.stringify(run.body?.error ?? run.body)}`,
      );
    }
    const actions = (await this.stack.api('GET', `/v1/runs/${runId}/actions`)).body?.actions as
      { node: string; started_at: string; finished_at: string }[] | undefined;
    const calls = (actions ?? []).filter((a) => a.node === 'calculator').length;
    if (calls !== opts.rounds) {
      throw new Error(`Switchyard run ${runId}: expected ${opts.rounds} calculator actions, got ${calls}`);
    }
    // A node service stamps started_at when it takes the task (before loading the state) and
    // finished_at when the node's code returned: the rest of a step is the runtime's.
    const nodeMs = (actions ?? []).reduce(
      (ms, a) => ms + (Date.parse(a.finished_at) - Date.parse(a.started_at)),
      0,
    );
    return { runId, threadId, wallMs, nodeMs, steps: actions?.length ?? 0 };
  }
}
