import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { TaskMessage } from '@switchyard/contracts';
import { createDataSource, ensureDatabase, runMigrationsLocked } from '@switchyard/persistence';
import { emptyState } from '@switchyard/state';
import type { NodeInput } from '../node-runtime';
import { jsonBytes } from './output-cap';
import { ToolLimits, ToolRunner } from './tool-runner';
import { OUTCOME_UNKNOWN, ToolReceipts } from './tool-receipts';

// ToolRunner against the real Postgres: time budgets become observations, large results are
// shrunk in the action and kept whole in tool_outputs (once per task, even when redelivered).

jest.setTimeout(30_000);

const CAP = 1024;
const tool = { name: 'probe', description: 'test tool', inputJsonSchema: {}, idempotent: true };
let ds: DataSource;
let runId: string;
let runner: ToolRunner;

function input(taskId = randomUUID(), signal = new AbortController().signal): NodeInput {
  const task: TaskMessage = {
    task_id: taskId,
    run_id: runId,
    thread_id: randomUUID(),
    turn: 0,
    node: 'probe',
    version: 1,
    step: 1,
    call_index: 0,
    attempt: 1,
    deadline: new Date(Date.now() + 60_000).toISOString(),
  };
  return {
    task,
    state: emptyState(task.thread_id, runId),
    signal,
    attempt: 1,
    emitToken: async () => undefined,
  };
}

beforeAll(async () => {
  const url = new URL(process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/switchyard_test_tool_runner_${process.pid}`;
  await ensureDatabase(url.toString());
  ds = await createDataSource(url.toString(), { poolSize: 2 });
  await runMigrationsLocked(ds);
  const [tenant] = (await ds.query(`INSERT INTO tenants (name) VALUES ($1) RETURNING id`, [
    `t-${randomUUID()}`,
  ])) as { id: string }[];
  const threadId = randomUUID();
  runId = randomUUID();
  await ds.query(`INSERT INTO threads (id, tenant_id, agent_id) VALUES ($1, $2, 'default')`, [
    threadId,
    tenant.id,
  ]);
  await ds.query(
    `INSERT INTO runs (id, tenant_id, thread_id, agent_id, status, input) VALUES ($1, $2, $3, 'default', 'running', '{}')`,
    [runId, tenant.id, threadId],
  );
  runner = new ToolRunner(ds, new ToolLimits(300, CAP), new ToolReceipts(ds));
});

afterAll(async () => {
  await ds?.destroy();
});

describe('ToolRunner', () => {
  it('passes a small result through and hands the task id as the idempotency key', async () => {
    const inp = input();
    const out = await runner.run(tool, inp, async ({ idempotencyKey, signal, timeoutMs }) => {
      expect(signal.aborted).toBe(false);
      return { summary: 'ok', result: { key: idempotencyKey, timeoutMs }, next: ['reflection'] };
    });
    expect(out.result).toEqual({ key: inp.task.task_id, timeoutMs: 300 });
    expect(out.error).toBeUndefined();
  });

  it('turns a tool that outlives its budget into a tool_timeout observation, even if it ignores the signal', async () => {
    const started = Date.now();
    const out = await runner.run(
      { ...tool, timeoutMs: 150 },
      input(),
      () =>
        new Promise((resolve) => {
          // unref: the ignored work must not keep jest waiting.
          setTimeout(() => resolve({ summary: 'late', result: 1, next: [] }), 2000).unref();
        }),
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(out.error).toEqual({
      code: 'tool_timeout',
      message: 'probe did not finish within 150 ms and was stopped',
    });
    expect(out.next).toEqual(['reflection']);
    expect(out.result).toBeNull();
  });

  it('rethrows when the run is cancelled, so the runtime drops the task', async () => {
    const cancel = new AbortController();
    const pending = runner.run(tool, input(randomUUID(), cancel.signal), ({ signal }) => {
      return new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    });
    cancel.abort();
    await expect(pending).rejects.toThrow('aborted');
  });

  it('shrinks a large result and keeps the full one in tool_outputs, once per task', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => [i, `row ${i} `.repeat(5)]);
    const full = { columns: ['i', 'text'], rows, row_count: 200, truncated: false };
    const inp = input();
    const work = async () => ({
      summary: 'big',
      result: full,
      context: [
        {
          type: 'text' as const,
          content: 'z'.repeat(5000),
          important: false,
          usage_type: 'reference' as const,
        },
      ],
      next: ['reflection'],
    });
    const out = await runner.run(tool, inp, work);
    const result = out.result as {
      preview: typeof full;
      output_truncated: true;
      output_bytes: number;
      reference: string;
    };
    expect(jsonBytes(result)).toBeLessThanOrEqual(CAP);
    expect(result.output_truncated).toBe(true);
    expect(result.output_bytes).toBe(jsonBytes(full));
    expect(result.preview.rows).toEqual(rows.slice(0, result.preview.rows.length));
    const id = result.reference.replace(/^tool-output:/, '');
    expect(out.context?.[0].mapping).toEqual({ provider: 'tool-output', path: id });
    expect(jsonBytes(out.context?.[0].content)).toBeLessThanOrEqual(CAP);

    const stored = (await ds.query('SELECT run_id, tool, content, bytes FROM tool_outputs WHERE id = $1', [
      id,
    ])) as {
      run_id: string;
      tool: string;
      content: unknown;
      bytes: number;
    }[];
    expect(stored).toEqual([{ run_id: runId, tool: 'probe', content: full, bytes: jsonBytes(full) }]);

    // A redelivery of the same task keeps one row and the same reference.
    const again = await runner.run(tool, inp, work);
    expect((again.result as { reference: string }).reference).toBe(result.reference);
    const count = (await ds.query('SELECT count(*)::int AS n FROM tool_outputs WHERE task_id = $1', [
      inp.task.task_id,
    ])) as {
      n: number;
    }[];
    expect(count[0].n).toBe(1);
  });

  it('keeps a result with NUL characters (jsonb refuses \\u0000)', async () => {
    const out = await runner.run(tool, input(), async () => ({
      summary: 'nul',
      result: { body: `a\u0000b${'x'.repeat(3000)}` },
      next: ['reflection'],
    }));
    expect((out.result as { reference: string }).reference).toMatch(/^tool-output:/);
  });

  describe('a tool that is not safe to run twice', () => {
    const post = { ...tool, name: 'poster', idempotent: false };

    it('acts once per task: a redelivery gets the receipt of the first call', async () => {
      const inp = input();
      let calls = 0;
      const work = async () => {
        calls++;
        return { summary: 'posted', result: { order: calls }, next: ['reflection'] };
      };
      const first = await runner.run(post, inp, work);
      const again = await runner.run(post, { ...inp, attempt: 2 }, work);
      expect(calls).toBe(1);
      expect(again.result).toEqual(first.result);
      expect(again.preparation).toMatch(/receipt of an earlier delivery: poster was not called again/);
    });

    it('does not act again after a delivery that started and never reported back', async () => {
      const inp = input();
      // What a kill -9 mid-call leaves: the receipt of a call that started.
      const hung = runner.run(post, inp, () => new Promise(() => undefined));
      await waitForReceipt(inp.task.task_id);
      let calls = 0;
      const out = await runner.run(post, { ...inp, attempt: 2 }, async () => {
        calls++;
        return { summary: 'posted', result: {}, next: ['reflection'] };
      });
      expect(calls).toBe(0);
      expect(out.error?.code).toBe(OUTCOME_UNKNOWN);
      expect(out.error?.message).toMatch(/may or may not have reached its target/);
      expect(out.next).toEqual(['reflection']);
      void hung.catch(() => undefined);
    });

    it('acts again when the first call failed with a retryable error (nothing was done)', async () => {
      const inp = input();
      const refused = Object.assign(new Error('connect ECONNREFUSED'), {
        code: 'network_error',
        retryable: true,
      });
      await expect(
        runner.run(post, inp, async () => {
          throw refused;
        }),
      ).rejects.toBe(refused);
      const out = await runner.run(post, { ...inp, attempt: 2 }, async () => ({
        summary: 'posted',
        result: { ok: true },
        next: ['reflection'],
      }));
      expect(out.result).toEqual({ ok: true });
    });

    it('keeps a failed call as its receipt: the observation is repeated, not the call', async () => {
      const inp = input();
      let calls = 0;
      const work = async () => {
        calls++;
        throw Object.assign(new Error('HTTP 409 conflict'), { code: 'http_error', retryable: false });
      };
      const first = await runner.run(post, inp, work);
      const again = await runner.run(post, inp, work);
      expect(calls).toBe(1);
      expect(first.error?.code).toBe('http_error');
      expect(again.error).toEqual(first.error);
    });
  });
});

async function waitForReceipt(taskId: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const rows = (await ds.query(`SELECT 1 FROM tool_receipts WHERE task_id = $1`, [taskId])) as unknown[];
    if (rows.length) {
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no receipt for ${taskId}`);
}
