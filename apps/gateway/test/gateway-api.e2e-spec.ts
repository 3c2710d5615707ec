import Ajv from 'ajv';
import OpenAI from 'openai';
import type { RunEvent } from '@switchyard/contracts';
import { TestStack, readSse, waitFor } from '@switchyard/testing';

// The gateway as business services use it: tenants and keys, isolation, idempotent creates,
// a lossless resumable event stream (also when Redis lost the events), the OpenAI-compatible
// endpoint, and input hygiene. Real services, real HTTP.

const ADMIN = `admin_${'x'.repeat(24)}`;
let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/skeleton.script.json',
    env: {
      SWITCHYARD_ADMIN_TOKEN: ADMIN,
      SWITCHYARD_RATE_LIMIT_PER_SECOND: '20',
      SWITCHYARD_RATE_LIMIT_BURST: '60',
      SWITCHYARD_MAX_ACTIVE_RUNS: '3',
      SWITCHYARD_SSE_HEARTBEAT_MS: '500',
      SWITCHYARD_CORS_ORIGINS: 'http://console.example:5173',
    },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function http(
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever JSON the gateway answered
): Promise<{ status: number; text: string; json: any; headers: Headers }> {
  const res = await fetch(`${stack.gatewayUrl}${path}`, {
    method,
    headers: {
      ...(opts.key ? { Authorization: `Bearer ${opts.key}` } : {}),
      ...(opts.body !== undefined || opts.raw !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...opts.headers,
    },
    body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}

async function tenantWithKey(name: string): Promise<{ id: string; key: string; keyId: string }> {
  const t = await http('POST', '/v1/admin/tenants', { key: ADMIN, body: { name } });
  expect(t.status).toBe(201);
  const k = await http('POST', `/v1/admin/tenants/${t.json.id}/keys`, {
    key: ADMIN,
    body: { label: 'test' },
  });
  expect(k.status).toBe(201);
  return { id: t.json.id, key: k.json.key, keyId: k.json.id };
}

async function runToEnd(key: string, prompt: string): Promise<{ run_id: string; thread_id: string }> {
  const res = await http('POST', '/v1/runs', { key, body: { input: { prompt } } });
  expect(res.status).toBe(202);
  await waitFor('the run to end', async () => {
    const r = await http('GET', `/v1/runs/${res.json.run_id}`, { key });
    return ['succeeded', 'failed', 'cancelled'].includes(r.json.status);
  });
  return res.json;
}

async function sse(key: string, runId: string, headers: Record<string, string> = {}, stopAfter?: number) {
  const read = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
    headers: { Authorization: `Bearer ${key}`, ...headers },
    stopAfter,
    timeoutMs: 60_000,
  });
  return read.frames;
}

describe('tenants and keys', () => {
  it('shows a key once, keeps only its hash, and a revoked key stops working at once', async () => {
    const t = await tenantWithKey('keys-tenant');
    expect(t.key).toMatch(/^sy_live_[A-Za-z0-9_-]{40,}$/);
    const listed = await http('GET', `/v1/admin/tenants/${t.id}/keys`, { key: ADMIN });
    expect(listed.text).not.toContain(t.key);
    const stored = await stack.sql<{ hash: string }>('SELECT * FROM api_keys WHERE id = $1', [t.keyId]);
    expect(JSON.stringify(stored)).not.toContain(t.key);
    expect(stored[0].hash).toMatch(/^[0-9a-f]{64}$/);

    expect((await http('GET', '/v1/runs/00000000-0000-4000-8000-000000000000', { key: t.key })).status).toBe(
      404,
    );
    const revoked = await http('DELETE', `/v1/admin/tenants/${t.id}/keys/${t.keyId}`, { key: ADMIN });
    expect(revoked.status).toBe(200);
    expect(revoked.json.revoked_at).not.toBeNull();
    const after = await http('GET', '/v1/runs/00000000-0000-4000-8000-000000000000', { key: t.key });
    expect(after.status).toBe(401);
    expect(after.json.error.code).toBe('unauthorized');
  });

  it('refuses the admin API without the admin token, and a tenant key there', async () => {
    expect((await http('POST', '/v1/admin/tenants', { body: { name: 'x' } })).status).toBe(401);
    const t = await tenantWithKey('not-admin');
    expect((await http('GET', '/v1/admin/tenants', { key: t.key })).status).toBe(401);
    expect(
      (await http('POST', '/v1/admin/tenants', { key: ADMIN, body: { name: 'not-admin' } })).status,
    ).toBe(409);
  });
});

describe('tenant isolation', () => {
  it("answers 404 for every route with another tenant's ids, exactly as for a random id", async () => {
    const a = await tenantWithKey('tenant-a');
    const b = await tenantWithKey('tenant-b');
    const bRun = await runToEnd(b.key, 'what is 2+3*4?');
    const random = '00000000-0000-4000-8000-000000000000';
    const routes = (run: string, thread: string): [string, string, unknown?][] => [
      ['GET', `/v1/runs/${run}`],
      ['GET', `/v1/runs/${run}/actions`],
      ['GET', `/v1/runs/${run}/events`],
      ['POST', `/v1/runs/${run}/cancel`],
      ['GET', `/v1/threads/${thread}`],
      ['GET', `/v1/threads/${thread}/runs`],
      ['GET', `/v1/threads/${thread}/state`],
      ['GET', `/v1/threads/${thread}/state?version=1`],
      ['POST', '/v1/runs', { input: { prompt: 'hi' }, thread_id: thread }],
    ];
    const theirs = routes(bRun.run_id, bRun.thread_id);
    const nobodys = routes(random, random);
    for (let i = 0; i < theirs.length; i++) {
      const [method, path, body] = theirs[i];
      const res = await http(method, path, { key: a.key, body });
      const ref = await http(nobodys[i][0], nobodys[i][1], { key: a.key, body: nobodys[i][2] });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.text).toBe(ref.text);
      expect(res.text).not.toContain(bRun.run_id);
      expect(res.text).not.toContain('14');
    }
    // B still sees its own run.
    expect((await http('GET', `/v1/runs/${bRun.run_id}`, { key: b.key })).json.status).toBe('succeeded');
  }, 60_000);
});

describe('listing runs', () => {
  it("pages through the tenant's runs newest first, filters them, and refuses bad filters naming them", async () => {
    const t = await tenantWithKey('lister');
    const other = await tenantWithKey('lister-other');
    const first = await runToEnd(t.key, 'what is 1+1?');
    const second = await runToEnd(t.key, 'what is 2+2?');
    const third = await runToEnd(t.key, 'what is 3+3?');
    await runToEnd(other.key, 'what is 4+4?');

    const page1 = await http('GET', '/v1/runs?limit=2', { key: t.key });
    expect(page1.status).toBe(200);
    expect(page1.json.runs.map((r: { run_id: string }) => r.run_id)).toEqual([third.run_id, second.run_id]);
    expect(page1.json.runs[0]).toMatchObject({
      status: 'succeeded',
      agent_id: 'default',
      thread_id: third.thread_id,
    });
    const page2 = await http('GET', `/v1/runs?limit=2&cursor=${page1.json.next_cursor}`, { key: t.key });
    expect(page2.json.runs.map((r: { run_id: string }) => r.run_id)).toEqual([first.run_id]);
    expect(page2.json.next_cursor).toBeNull();

    const byThread = await http('GET', `/v1/runs?thread_id=${second.thread_id}`, { key: t.key });
    expect(byThread.json.runs.map((r: { run_id: string }) => r.run_id)).toEqual([second.run_id]);
    expect((await http('GET', '/v1/runs?status=failed,cancelled', { key: t.key })).json.runs).toEqual([]);
    expect((await http('GET', '/v1/runs?status=succeeded', { key: t.key })).json.runs).toHaveLength(3);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await http('GET', `/v1/runs?since=${future}`, { key: t.key })).json.runs).toEqual([]);

    for (const [query, field] of [
      ['status=done', 'status'],
      ['limit=0', 'limit'],
      ['thread_id=nope', 'thread_id'],
      ['cursor=abc', 'cursor'],
      ['since=yesterday', 'since'],
      ['colour=red', ''],
    ]) {
      const bad = await http('GET', `/v1/runs?${query}`, { key: t.key });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.json.error)).toContain(field);
    }
  });
});

describe('listing threads', () => {
  it("pages through the tenant's threads newest first with their titles, and refuses bad filters", async () => {
    const t = await tenantWithKey('thread-lister');
    const other = await tenantWithKey('thread-lister-other');
    const first = await runToEnd(t.key, 'what is 1+1?');
    const second = await runToEnd(t.key, 'what is 2+2?');
    const third = await runToEnd(t.key, 'what is 3+3?');
    await runToEnd(other.key, 'what is 4+4?');

    const page1 = await http('GET', '/v1/threads?limit=2', { key: t.key });
    expect(page1.status).toBe(200);
    expect(page1.json.threads.map((x: { thread_id: string }) => x.thread_id)).toEqual([
      third.thread_id,
      second.thread_id,
    ]);
    expect(page1.json.threads[0]).toMatchObject({ agent_id: 'default', turns: 1, active_run_id: null });
    expect(typeof page1.json.threads[0].title).toBe('string');
    const page2 = await http('GET', `/v1/threads?limit=2&cursor=${page1.json.next_cursor}`, { key: t.key });
    expect(page2.json.threads.map((x: { thread_id: string }) => x.thread_id)).toEqual([first.thread_id]);
    expect(page2.json.next_cursor).toBeNull();
    expect((await http('GET', '/v1/threads?agent_id=default', { key: t.key })).json.threads).toHaveLength(3);
    expect((await http('GET', '/v1/threads?agent_id=someone-else', { key: t.key })).json.threads).toEqual([]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await http('GET', `/v1/threads?since=${future}`, { key: t.key })).json.threads).toEqual([]);
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['cursor=abc', 'cursor'],
      ['until=tomorrow', 'until'],
      ['colour=red', ''],
    ]) {
      const bad = await http('GET', `/v1/threads?${query}`, { key: t.key });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.json.error)).toContain(field);
    }
  });
});

describe('deleting a thread', () => {
  it('deletes the thread, its runs, state and events; keeps metered usage; 404 elsewhere, 409 while active', async () => {
    const t = await tenantWithKey('thread-deleter');
    const other = await tenantWithKey('thread-deleter-other');
    const run = await runToEnd(t.key, 'what is 2+3*4?');
    const usageBefore = await stack.sql<{ n: string }>(
      'SELECT count(*) AS n FROM model_usage WHERE run_id = $1',
      [run.run_id],
    );
    expect(Number(usageBefore[0].n)).toBeGreaterThan(0);
    expect(await stack.redis('EXISTS', `sy:run:${run.run_id}:events`)).toBe(1);

    expect((await http('DELETE', `/v1/threads/${run.thread_id}`, { key: other.key })).status).toBe(404);
    const del = await http('DELETE', `/v1/threads/${run.thread_id}`, { key: t.key });
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ deleted: true, thread_id: run.thread_id, runs_deleted: 1 });

    expect((await http('GET', `/v1/threads/${run.thread_id}`, { key: t.key })).status).toBe(404);
    expect((await http('GET', `/v1/runs/${run.run_id}`, { key: t.key })).status).toBe(404);
    const left = await stack.sql<{ n: string }>(
      `SELECT (SELECT count(*) FROM state_deltas WHERE thread_id = $1) + (SELECT count(*) FROM state_snapshots WHERE thread_id = $1)
            + (SELECT count(*) FROM run_tasks WHERE run_id = $2) AS n`,
      [run.thread_id, run.run_id],
    );
    expect(Number(left[0].n)).toBe(0);
    expect(await stack.redis('EXISTS', `sy:run:${run.run_id}:events`)).toBe(0);
    const usageAfter = await stack.sql<{ n: string }>(
      'SELECT count(*) AS n FROM model_usage WHERE run_id = $1',
      [run.run_id],
    );
    expect(usageAfter[0].n).toBe(usageBefore[0].n);
    expect((await http('DELETE', `/v1/threads/${run.thread_id}`, { key: t.key })).status).toBe(404);

    const waiting = await http('POST', '/v1/runs', {
      key: t.key,
      body: { input: { prompt: '[ask] greet me' } },
    });
    await waitFor(
      'the run to wait',
      async () =>
        (await http('GET', `/v1/runs/${waiting.json.run_id}`, { key: t.key })).json.status === 'waiting',
    );
    const busy = await http('DELETE', `/v1/threads/${waiting.json.thread_id}`, { key: t.key });
    expect(busy.status).toBe(409);
    expect(busy.json.error.message).toContain('cancel it first');
    await http('POST', `/v1/runs/${waiting.json.run_id}/cancel`, { key: t.key });
    await waitFor(
      'the run to be cancelled',
      async () =>
        (await http('GET', `/v1/runs/${waiting.json.run_id}`, { key: t.key })).json.status === 'cancelled',
    );
    expect((await http('DELETE', `/v1/threads/${waiting.json.thread_id}`, { key: t.key })).status).toBe(200);
  });
});

describe('idempotent create', () => {
  it('20 concurrent POSTs with one request_id make one run and the same response', async () => {
    const t = await tenantWithKey('idem');
    const body = { input: { prompt: 'what is 2+3*4?' }, request_id: 'order-42' };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => http('POST', '/v1/runs', { key: t.key, body })),
    );
    const ids = new Set(answers.map((r) => r.json.run_id));
    expect(ids.size).toBe(1);
    expect(answers.filter((r) => r.status === 202)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(19);
    const first = answers.find((r) => r.status === 202)!.json;
    for (const r of answers) {
      expect(r.json).toEqual(first);
    }
    const rows = await stack.sql('SELECT id FROM runs WHERE tenant_id = $1', [t.id]);
    expect(rows).toHaveLength(1);
    // Later, with another body, still the same run.
    const again = await http('POST', '/v1/runs', {
      key: t.key,
      body: { ...body, input: { prompt: 'other' } },
    });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first);
  });
});

describe('the event stream', () => {
  async function dropAndResume(key: string, runId: string): Promise<RunEvent[]> {
    const got: RunEvent[] = [];
    let last: string | undefined;
    for (let drop = 0; drop < 10; drop++) {
      const frames = await sse(
        key,
        runId,
        last ? { 'Last-Event-ID': last } : {},
        1 + Math.floor(Math.random() * 3),
      );
      for (const f of frames) {
        if (f.event !== 'reset') {
          got.push(JSON.parse(f.data) as RunEvent);
          last = f.id;
        }
      }
      if (got.at(-1)?.event_type === 'done') {
        return got;
      }
    }
    const rest = await sse(key, runId, last ? { 'Last-Event-ID': last } : {});
    return [...got, ...rest.map((f) => JSON.parse(f.data) as RunEvent)];
  }

  it('dropped at 10 random points and resumed with the last id, the stream is whole: no gap, no duplicate', async () => {
    const t = await tenantWithKey('sse');
    const created = await http('POST', '/v1/runs', {
      key: t.key,
      body: { input: { prompt: 'what is 2+3*4? [long-answer]' } },
    });
    const pieces = await dropAndResume(t.key, created.json.run_id);
    const full = (await sse(t.key, created.json.run_id)).map((f) => JSON.parse(f.data) as RunEvent);
    expect(full.at(-1)?.event_type).toBe('done');
    expect(full.filter((e) => e.event_type === 'token').length).toBeGreaterThan(20);
    expect(pieces).toEqual(full);
  }, 60_000);

  it('after FLUSHALL the stream is rebuilt from Postgres, resumable the same way; an old cursor gets a reset', async () => {
    const t = await tenantWithKey('sse-flush');
    const run = await runToEnd(t.key, 'what is 2+3*4?');
    const before = (await sse(t.key, run.run_id)).map((f) => JSON.parse(f.data) as RunEvent);
    await stack.redis('FLUSHALL');

    const rebuilt = (await sse(t.key, run.run_id)).map((f) => JSON.parse(f.data) as RunEvent);
    const shape = (list: RunEvent[]) =>
      list
        .filter((e) => ['status', 'action', 'done'].includes(e.event_type))
        .map((e) => [e.event_type, e.payload]);
    expect(shape(rebuilt)).toEqual(shape(before));
    expect(rebuilt.map((e) => e.seq)).toEqual(rebuilt.map((_, i) => `0-${i + 1}`));
    expect(await dropAndResume(t.key, run.run_id)).toEqual(rebuilt);

    const old = await sse(t.key, run.run_id, { 'Last-Event-ID': before[4].seq });
    expect(old[0].event).toBe('reset');
    expect(old.slice(1).map((f) => JSON.parse(f.data))).toEqual(rebuilt);
  }, 60_000);

  it('a waiting run whose events Redis lost asks its question again in the rebuilt stream', async () => {
    const t = await tenantWithKey('sse-flush-waiting');
    const created = await http('POST', '/v1/runs', {
      key: t.key,
      body: { input: { prompt: '[ask] greet me' } },
    });
    const runId = created.json.run_id as string;
    await waitFor(
      'the run to wait',
      async () => (await http('GET', `/v1/runs/${runId}`, { key: t.key })).json.status === 'waiting',
    );
    await stack.redis('FLUSHALL');
    // The stream stays open while the run waits: read up to the question.
    const frames = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
      headers: { Authorization: `Bearer ${t.key}` },
      stopAfter: 20,
      timeoutMs: 3_000,
    });
    const events = frames.frames.map((f) => JSON.parse(f.data) as RunEvent);
    const ask = events.find((e) => e.event_type === 'waiting_for_user');
    expect(ask?.payload).toEqual({
      question: 'What is your name?',
      input_schema: expect.objectContaining({ required: ['name'] }),
    });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => `0-${i + 1}`));
  }, 60_000);

  it('a live run whose events Redis lost mid-run still streams every action once and ends with done', async () => {
    const t = await tenantWithKey('sse-live-flush');
    const created = await http('POST', '/v1/runs', {
      key: t.key,
      body: { input: { prompt: 'what is 2+3*4? [long-answer]' } },
    });
    const first = await sse(t.key, created.json.run_id, {}, 12);
    await stack.redis('FLUSHALL');
    const rest = await sse(t.key, created.json.run_id, { 'Last-Event-ID': first.at(-1)!.id! });
    expect(rest[0].event).toBe('reset');
    const events = rest.slice(1).map((f) => JSON.parse(f.data) as RunEvent);
    const actionIds = events
      .filter((e) => e.event_type === 'action')
      .map((e) => (e.payload as { id: number }).id);
    expect(actionIds).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events.at(-1)?.event_type).toBe('done');
  }, 60_000);

  it('a run whose final events never reached Redis ends its stream from Postgres, not by hanging', async () => {
    const t = await tenantWithKey('sse-lost-done');
    const run = await runToEnd(t.key, 'what is 2+3*4?');
    const key = `sy:run:${run.run_id}:events`;
    const entries = (await stack.redis('XRANGE', key, '-', '+')) as [string, string[]][];
    const type = (fields: string[]) => fields[fields.indexOf('type') + 1];
    // As if the orchestrator died between its commit and writing the run's last events.
    const tail = entries.slice(entries.findLastIndex(([, f]) => type(f) === 'action') + 1);
    expect(tail.map(([, f]) => type(f))).toContain('done');
    await stack.redis('XDEL', key, ...tail.map(([id]) => id));

    const started = Date.now();
    const frames = await sse(t.key, run.run_id);
    const events = frames.map((f) => JSON.parse(f.data) as RunEvent);
    expect(events.filter((e) => e.event_type === 'action').length).toBeGreaterThan(3);
    expect(events.slice(-2).map((e) => [e.event_type, (e.payload as { status?: string }).status])).toEqual([
      ['status', 'succeeded'],
      ['done', 'succeeded'],
    ]);
    // The gateway's one watchdog confirms the end on two ticks (5 s apart).
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);

  it('50 subscribers following one live run, joining at different moments, all get the whole stream', async () => {
    const t = await tenantWithKey('sse-many');
    const created = await http('POST', '/v1/runs', {
      key: t.key,
      body: { input: { prompt: 'what is 2+3*4? [long-answer]' } },
    });
    const reads = Array.from({ length: 50 }, (_, i) =>
      new Promise((r) => setTimeout(r, i * 15)).then(() => sse(t.key, created.json.run_id)),
    );
    const streams = (await Promise.all(reads)).map((frames) => frames.map((f) => f.id));
    const full = (await sse(t.key, created.json.run_id)).map((f) => f.id);
    expect(full.length).toBeGreaterThan(30);
    for (const s of streams) {
      expect(s).toEqual(full);
    }
  }, 60_000);

  it('sends heartbeats while a run is quiet, and rejects a malformed cursor', async () => {
    const t = await tenantWithKey('sse-misc');
    const slow = await http('POST', '/v1/runs', { key: t.key, body: { input: { prompt: '[slow] quiet' } } });
    const read = await readSse(`${stack.gatewayUrl}/v1/runs/${slow.json.run_id}/events`, {
      headers: { Authorization: `Bearer ${t.key}` },
      timeoutMs: 30_000,
    });
    expect(read.contentType).toContain('text/event-stream');
    expect(read.comments.filter((c) => c === 'heartbeat').length).toBeGreaterThanOrEqual(3);
    expect(read.frames.at(-1)?.event).toBe('done');
    // Seed 004's close control event ends the stream of a run that is over.
    expect(read.close?.id).toBeUndefined();
    expect(JSON.parse(read.close!.data)).toMatchObject({
      event_type: 'close',
      payload: { reason: 'run_ended', reconnect: false },
    });
    const run = await runToEnd(t.key, 'what is 2+3*4?');
    const bad = await http('GET', `/v1/runs/${run.run_id}/events?after_seq=12-x`, { key: t.key });
    expect(bad.status).toBe(400);
    const badHeader = await http('GET', `/v1/runs/${run.run_id}/events`, {
      key: t.key,
      headers: { 'Last-Event-ID': 'nope' },
    });
    expect(badHeader.status).toBe(400);
  });
});

describe('OpenAI-compatible chat completions', () => {
  it('the official openai client completes a chat with and without streaming', async () => {
    const t = await tenantWithKey('openai');
    const client = new OpenAI({ apiKey: t.key, baseURL: `${stack.gatewayUrl}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'default',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'what is 2+3*4?' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0].message.content).toContain('14');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);

    const stream = await client.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'what is 6*7? [long-answer]' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let chunks = 0;
    let usage: { total_tokens: number } | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(chunks).toBeGreaterThan(10);
    expect(text).toBe(Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '));
    expect(finish).toBe('stop');
    expect(usage?.total_tokens).toBeGreaterThan(0);
  }, 60_000);
});

describe('input hygiene', () => {
  it.each([
    ['malformed JSON', 'POST', '/v1/runs', { raw: '{"input": ' }, 400, 'invalid_request'],
    ['wrong types', 'POST', '/v1/runs', { body: { input: { prompt: 42 } } }, 400, 'invalid_request'],
    ['missing prompt', 'POST', '/v1/runs', { body: { input: {} } }, 400, 'invalid_request'],
    [
      'huge prompt',
      'POST',
      '/v1/runs',
      { body: { input: { prompt: 'x'.repeat(100_001) } } },
      400,
      'invalid_request',
    ],
    [
      'oversize body',
      'POST',
      '/v1/runs',
      { raw: JSON.stringify({ input: { prompt: 'x'.repeat(1_100_000) } }) },
      413,
      'payload_too_large',
    ],
    [
      'wrong content type',
      'POST',
      '/v1/runs',
      { headers: { 'Content-Type': 'text/plain' }, rawText: 'hello' },
      415,
      'unsupported_media_type',
    ],
    ['invalid run id', 'GET', '/v1/runs/123', {}, 400, 'invalid_request'],
    ['invalid thread id', 'GET', '/v1/threads/not-a-uuid/state', {}, 400, 'invalid_request'],
    [
      'bad state version',
      'GET',
      '/v1/threads/00000000-0000-4000-8000-000000000000/state?version=-1',
      {},
      400,
      'invalid_request',
    ],
    ['unknown route', 'GET', '/v1/nothing-here', {}, 404, 'not_found'],
    [
      'unknown agent',
      'POST',
      '/v1/runs',
      { body: { input: { prompt: 'hi' }, agent_id: 'nope' } },
      404,
      'not_found',
    ],
    [
      'missing auth',
      'GET',
      '/v1/runs/00000000-0000-4000-8000-000000000000',
      { noKey: true },
      401,
      'unauthorized',
    ],
    [
      'bad key',
      'GET',
      '/v1/runs/00000000-0000-4000-8000-000000000000',
      { key: 'sy_live_nope' },
      401,
      'unauthorized',
    ],
  ] as const)('%s (%s %s)', async (_name, method, path, opts, status, code) => {
    const t = await tenantWithKey(`hygiene-${Math.random().toString(36).slice(2)}`);
    const o = opts as {
      raw?: string;
      body?: unknown;
      headers?: Record<string, string>;
      rawText?: string;
      noKey?: boolean;
      key?: string;
    };
    const res = o.rawText
      ? await fetch(`${stack.gatewayUrl}${path}`, {
          method,
          headers: { Authorization: `Bearer ${t.key}`, ...o.headers },
          body: o.rawText,
        }).then(async (r) => ({ status: r.status, text: await r.text() }))
      : await http(method, path, {
          key: o.noKey ? undefined : (o.key ?? t.key),
          body: o.body,
          raw: o.raw,
          headers: o.headers,
        });
    expect(res.status).toBe(status);
    const body = JSON.parse(res.text) as { error: { code: string; message: string } };
    expect(body.error.code).toBe(code);
    expect(body.error.message.length).toBeGreaterThan(0);
    expect(res.text).not.toMatch(/\n\s+at |\.ts:\d+/);
    expect((await fetch(`${stack.gatewayUrl}/healthz`)).status).toBe(200);
  });

  it('validation errors name the failing fields', async () => {
    const t = await tenantWithKey('hygiene-details');
    const res = await http('POST', '/v1/runs', {
      key: t.key,
      body: { input: { prompt: '' }, request_id: '', multitask: 'x' },
    });
    expect(res.json.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'input.prompt',
      'multitask',
      'request_id',
    ]);
  });

  it('rate-limits a tenant with 429 and Retry-After, other tenants unaffected', async () => {
    const noisy = await tenantWithKey('noisy');
    const quiet = await tenantWithKey('quiet');
    const results = await Promise.all(
      Array.from({ length: 120 }, () =>
        http('GET', '/v1/runs/00000000-0000-4000-8000-000000000000', { key: noisy.key }),
      ),
    );
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0].json.error.code).toBe('rate_limited');
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(
      (await http('GET', '/v1/runs/00000000-0000-4000-8000-000000000000', { key: quiet.key })).status,
    ).toBe(404);
  });

  it('caps the concurrent active runs of a tenant', async () => {
    const t = await tenantWithKey('busy-tenant');
    const made = [];
    for (let i = 0; i < 4; i++) {
      made.push(await http('POST', '/v1/runs', { key: t.key, body: { input: { prompt: '[slow] think' } } }));
    }
    expect(made.slice(0, 3).map((r) => r.status)).toEqual([202, 202, 202]);
    expect(made[3].status).toBe(429);
    expect(made[3].json.error.message).toContain('active runs');
  });
});

describe('OpenAPI and resume', () => {
  it('serves the OpenAPI description generated from the validation schemas, and its UI', async () => {
    const doc = await http('GET', '/docs/json');
    expect(doc.status).toBe(200);
    const create = doc.json.paths['/v1/runs'].post.requestBody.content['application/json'].schema;
    expect(create.required).toContain('input');
    expect(create.properties.input.properties.prompt).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 100000,
    });
    expect(create.properties.multitask.enum).toEqual(['reject', 'enqueue', 'interrupt']);
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining([
        '/v1/runs/{run_id}/events',
        '/v1/chat/completions',
        '/v1/threads/{thread_id}/state',
      ]),
    );
    const ui = await fetch(`${stack.gatewayUrl}/docs`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
  });

  it('answers what its OpenAPI document says: real responses validate against the documented schemas', async () => {
    const doc = (await http('GET', '/docs/json')).json;
    // OpenAPI 3.0 schemas (nullable), objects closed: a field the API sends but the document lacks fails.
    const ajv = new Ajv({ strict: false, allErrors: true });
    // OpenAPI 3.0 says `exclusiveMinimum: true` beside `minimum`; JSON Schema (ajv) wants the bound.
    const jsonSchema = (v: unknown): unknown => {
      if (Array.isArray(v)) {
        return v.map(jsonSchema);
      }
      if (!v || typeof v !== 'object') {
        return v;
      }
      const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonSchema(x)]));
      for (const [flag, bound] of [
        ['exclusiveMinimum', 'minimum'],
        ['exclusiveMaximum', 'maximum'],
      ]) {
        if (o[flag] === true) {
          o[flag] = o[bound];
          delete o[bound];
        } else if (o[flag] === false) {
          delete o[flag];
        }
      }
      return o;
    };
    const check = (path: string, method: string, status: number, value: unknown) => {
      const schema = doc.paths[path][method].responses[status].content['application/json'].schema;
      const valid = ajv.validate(jsonSchema(schema) as object, value);
      expect({ path, method, status, errors: valid ? null : ajv.errors }).toEqual({
        path,
        method,
        status,
        errors: null,
      });
    };
    const t = await tenantWithKey('openapi-shapes');
    const created = await http('POST', '/v1/runs', {
      key: t.key,
      body: { input: { prompt: 'what is 2+3*4?' } },
    });
    check('/v1/runs', 'post', 202, created.json);
    await waitFor('the run to end', async () => {
      const r = await http('GET', `/v1/runs/${created.json.run_id}`, { key: t.key });
      return r.json.status === 'succeeded';
    });
    check(
      '/v1/runs/{run_id}',
      'get',
      200,
      (await http('GET', `/v1/runs/${created.json.run_id}`, { key: t.key })).json,
    );
    check('/v1/runs', 'get', 200, (await http('GET', '/v1/runs', { key: t.key })).json);
    check(
      '/v1/threads/{thread_id}/runs',
      'get',
      200,
      (await http('GET', `/v1/threads/${created.json.thread_id}/runs`, { key: t.key })).json,
    );
    check(
      '/v1/runs/{run_id}/actions',
      'get',
      200,
      (await http('GET', `/v1/runs/${created.json.run_id}/actions`, { key: t.key })).json,
    );
  });

  it('answers 409 run_not_waiting to a resume of a run that is not waiting', async () => {
    const t = await tenantWithKey('resume');
    const run = await runToEnd(t.key, 'what is 2+3*4?');
    const res = await http('POST', `/v1/runs/${run.run_id}/resume`, {
      key: t.key,
      body: { input: { answer: 'x' } },
    });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('run_not_waiting');
  });
});

describe('agents', () => {
  async function runOf(key: string, body: Record<string, unknown>) {
    const res = await http('POST', '/v1/runs', { key, body });
    expect(res.status).toBe(202);
    await waitFor('the run to end', async () => {
      const r = await http('GET', `/v1/runs/${res.json.run_id}`, { key });
      return ['succeeded', 'failed', 'cancelled'].includes(r.json.status);
    });
    const run = (await http('GET', `/v1/runs/${res.json.run_id}`, { key })).json;
    const actions = (await http('GET', `/v1/runs/${res.json.run_id}/actions`, { key })).json.actions as {
      node: string;
      result: { content?: string };
    }[];
    return { run, actions };
  }

  it('pins the version a run starts with: tools, system prompt and max_steps; draft and publish', async () => {
    const t = await tenantWithKey('agents');
    const created = await http('POST', '/v1/agents', {
      key: t.key,
      body: {
        name: 'calc-only',
        tools: ['calculator'],
        max_steps: 5,
        system_prompt: 'Always answer like a pirate.',
      },
    });
    expect(created.status).toBe(201);
    const agentId = created.json.id as string;
    expect(created.json.version).toMatch(/^[0-9a-f-]{36}$/);

    const offered = async (agent: string) =>
      (await runOf(t.key, { input: { prompt: '[agent-tools] hi' }, agent_id: agent })).actions.find(
        (a) => a.node === 'planner',
      )?.result.content;
    expect(await offered('default')).toBe('http_get was offered');
    expect(await offered(agentId)).toBe('http_get was not offered');
    const prompted = await runOf(t.key, { input: { prompt: '[agent-prompt] hi' }, agent_id: agentId });
    expect(prompted.actions.find((a) => a.node === 'planner')?.result.content).toBe('pirate prompt seen');

    const loop = (extra: Record<string, unknown>) =>
      runOf(t.key, { input: { prompt: '[loop] again' }, agent_id: agentId, ...extra });
    const v1 = await loop({});
    expect(v1.run.status).toBe('failed');
    expect(v1.run.error.code).toBe('max_steps_exceeded');
    expect(v1.actions).toHaveLength(5);

    const patched = await http('PATCH', `/v1/agents/${agentId}`, { key: t.key, body: { max_steps: 7 } });
    expect(patched.json.draft.max_steps).toBe(7);
    expect((await loop({ agent_version: 'draft' })).actions).toHaveLength(7);
    expect((await loop({})).actions).toHaveLength(5);
    const published = await http('POST', `/v1/agents/${agentId}/versions`, { key: t.key });
    expect(published.json.version).toBe(2);
    expect((await loop({})).actions).toHaveLength(7);
    expect((await loop({ agent_version: created.json.version })).actions).toHaveLength(5);
    const versions = await http('GET', `/v1/agents/${agentId}/versions`, { key: t.key });
    expect(versions.json.versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);

    // A version published while a run is under way changes nothing for that run.
    const slow = await http('POST', '/v1/runs', {
      key: t.key,
      body: { input: { prompt: '[slow-intake] [agent-prompt] hi' }, agent_id: agentId },
    });
    expect(slow.status).toBe(202);
    await waitFor('the slow intake to be asked', async () => {
      const requests = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as { rule: string | null }[];
      return requests.some((r) => r.rule === 'intake-slow');
    });
    const robot = await http('PATCH', `/v1/agents/${agentId}`, {
      key: t.key,
      body: { system_prompt: 'Always answer like a robot.' },
    });
    expect(robot.status).toBe(200);
    expect((await http('POST', `/v1/agents/${agentId}/versions`, { key: t.key })).json.version).toBe(3);
    await waitFor('the slow run to end', async () => {
      const r = await http('GET', `/v1/runs/${slow.json.run_id}`, { key: t.key });
      return r.json.status === 'succeeded';
    });
    const slowActions = (await http('GET', `/v1/runs/${slow.json.run_id}/actions`, { key: t.key })).json
      .actions as { node: string; result: { content?: string } }[];
    expect(slowActions.find((a) => a.node === 'planner')?.result.content).toBe('pirate prompt seen');
    const after = await runOf(t.key, { input: { prompt: '[agent-prompt] hi' }, agent_id: agentId });
    expect(after.actions.find((a) => a.node === 'planner')?.result.content).toBe('No tool needed.');

    const other = await tenantWithKey('agents-other');
    expect((await http('GET', `/v1/agents/${agentId}`, { key: other.key })).status).toBe(404);
    expect(
      (
        await http('POST', '/v1/runs', {
          key: other.key,
          body: { input: { prompt: 'x' }, agent_id: agentId },
        })
      ).status,
    ).toBe(404);

    expect((await http('DELETE', `/v1/agents/${agentId}`, { key: t.key })).status).toBe(200);
    expect(
      (await http('POST', '/v1/runs', { key: t.key, body: { input: { prompt: 'x' }, agent_id: agentId } }))
        .status,
    ).toBe(404);
    expect((await http('POST', '/v1/agents', { key: t.key, body: { name: '' } })).status).toBe(400);
  }, 90_000);
});

describe('task deadlines per node', () => {
  it("sets each task's deadline from the agent's node_timeouts_ms, else the default; refuses nodes it cannot run", async () => {
    const t = await tenantWithKey('deadlines');
    const refused = await http('POST', '/v1/agents', {
      key: t.key,
      body: { name: 'bad', node_timeouts_ms: { calculator: 30_000, nope: 5_000 } },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.error.details).toEqual([
      expect.objectContaining({ field: 'node_timeouts_ms.nope', message: expect.stringContaining('"nope"') }),
    ]);
    // ask_user is answered by a person: no node deadline applies to it.
    expect(
      (
        await http('POST', '/v1/agents', {
          key: t.key,
          body: { name: 'bad', node_timeouts_ms: { ask_user: 5_000 } },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await http('POST', '/v1/agents', {
          key: t.key,
          body: { name: 'bad', node_timeouts_ms: { calculator: 10 } },
        })
      ).status,
    ).toBe(400);

    const created = await http('POST', '/v1/agents', {
      key: t.key,
      body: { name: 'deadlines', node_timeouts_ms: { calculator: 45_000, intake: 1_500 } },
    });
    expect(created.status).toBe(201);
    expect(created.json.node_timeouts_ms).toEqual({ calculator: 45_000, intake: 1_500 });
    const res = await http('POST', '/v1/runs', {
      key: t.key,
      // The intake's reply takes 3.5 s: past its 1.5 s deadline, the reaper dispatches it again.
      body: { input: { prompt: '[slower-intake] what is 2+3*4?' }, agent_id: created.json.id },
    });
    expect(res.status).toBe(202);
    const frames = await sse(t.key, res.json.run_id);
    expect(frames.at(-1)?.event).toBe('done');
    const run = (await http('GET', `/v1/runs/${res.json.run_id}`, { key: t.key })).json;
    expect(run.status).toBe('succeeded');
    const overdue = frames
      .filter((f) => f.event === 'error')
      .map(
        (f) => (JSON.parse(f.data) as { payload: { code: string; node: string; message: string } }).payload,
      );
    expect(overdue[0]).toEqual(
      expect.objectContaining({
        code: 'task_timeout',
        node: 'intake',
        message: expect.stringContaining('did not answer within 1500 ms; attempt 2 of'),
      }),
    );
    const deadlines = await stack.sql<{ node: string; ms: number }>(
      `SELECT node, round(extract(epoch FROM deadline - created_at) * 1000)::int AS ms
       FROM run_tasks WHERE run_id = $1 AND node IN ('planner', 'calculator') ORDER BY step`,
      [res.json.run_id],
    );
    const of = (node: string) => deadlines.filter((d) => d.node === node).map((d) => d.ms);
    expect(of('calculator').length).toBeGreaterThan(0);
    for (const ms of of('calculator')) {
      expect(Math.abs(ms - 45_000)).toBeLessThan(1_000);
    }
    // Not set for the planner: the deployment's SWITCHYARD_TASK_TIMEOUT_MS (120 s by default).
    expect(of('planner').length).toBeGreaterThan(0);
    for (const ms of of('planner')) {
      expect(Math.abs(ms - 120_000)).toBeLessThan(1_000);
    }
  }, 60_000);
});

describe('fair dispatch settings', () => {
  const fieldsOf = (r: { json: { error?: { details?: { field: string }[] } } }) =>
    (r.json.error?.details ?? []).map((d) => d.field);

  it("sets a tenant's weight, shows it everywhere, refuses bad values naming weight, and null puts back 1", async () => {
    const t = await tenantWithKey('weighted');
    const path = `/v1/admin/tenants/${t.id}`;
    expect((await http('GET', path, { key: ADMIN })).json.weight).toBe(1);

    const set = await http('PATCH', path, { key: ADMIN, body: { weight: 3 } });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({ id: t.id, name: 'weighted', weight: 3 });
    expect((await http('GET', path, { key: ADMIN })).json.weight).toBe(3);
    const listed = await http('GET', '/v1/admin/tenants', { key: ADMIN });
    expect(listed.json.tenants.find((x: { id: string }) => x.id === t.id).weight).toBe(3);
    expect(
      (await stack.sql<{ weight: number }>('SELECT weight FROM tenants WHERE id = $1', [t.id]))[0].weight,
    ).toBe(3);

    for (const weight of [0, -1, 1001, 'x']) {
      const bad = await http('PATCH', path, { key: ADMIN, body: { weight } });
      expect({ weight, status: bad.status, code: bad.json.error.code }).toEqual({
        weight,
        status: 400,
        code: 'invalid_request',
      });
      expect(fieldsOf(bad)).toEqual(['weight']);
    }
    // Refused values changed nothing; other fields leave the weight alone.
    expect((await http('PATCH', path, { key: ADMIN, body: { max_running_runs: 5 } })).json).toMatchObject({
      weight: 3,
      max_running_runs: 5,
    });
    expect((await http('PATCH', path, { key: ADMIN, body: { weight: 0.5 } })).json.weight).toBe(0.5);
    expect((await http('PATCH', path, { key: ADMIN, body: { weight: 1000 } })).json.weight).toBe(1000);

    const cleared = await http('PATCH', path, { key: ADMIN, body: { weight: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.json.weight).toBe(1);
    expect((await http('GET', path, { key: ADMIN })).json.weight).toBe(1);
  });

  it('runs a batch run to the end showing its priority, defaults to interactive, and refuses an unknown priority', async () => {
    const t = await tenantWithKey('prioritised');
    const batch = await http('POST', '/v1/runs', {
      key: t.key,
      body: { input: { prompt: 'what is 2+3*4?' }, priority: 'batch' },
    });
    expect(batch.status).toBe(202);
    await waitFor('the batch run to end', async () =>
      ['succeeded', 'failed', 'cancelled'].includes(
        (await http('GET', `/v1/runs/${batch.json.run_id}`, { key: t.key })).json.status,
      ),
    );
    const got = await http('GET', `/v1/runs/${batch.json.run_id}`, { key: t.key });
    expect(got.json).toMatchObject({ run_id: batch.json.run_id, status: 'succeeded', priority: 'batch' });
    const stored = await stack.sql<{ priority: string }>('SELECT priority FROM runs WHERE id = $1', [
      batch.json.run_id,
    ]);
    expect(stored[0].priority).toBe('batch');

    const plain = await runToEnd(t.key, 'what is 1+1?');
    expect((await http('GET', `/v1/runs/${plain.run_id}`, { key: t.key })).json).toMatchObject({
      status: 'succeeded',
      priority: 'interactive',
    });
    const listed = await http('GET', '/v1/runs', { key: t.key });
    expect(listed.json.runs.map((r: { run_id: string; priority: string }) => [r.run_id, r.priority])).toEqual(
      [
        [plain.run_id, 'interactive'],
        [batch.json.run_id, 'batch'],
      ],
    );
    const threadRuns = await http('GET', `/v1/threads/${batch.json.thread_id}/runs`, { key: t.key });
    expect(threadRuns.json.runs.map((r: { priority: string }) => r.priority)).toEqual(['batch']);

    for (const priority of ['urgent', 1, null]) {
      const bad = await http('POST', '/v1/runs', {
        key: t.key,
        body: { input: { prompt: 'hi' }, priority },
      });
      expect({ priority, status: bad.status, code: bad.json.error.code }).toEqual({
        priority,
        status: 400,
        code: 'invalid_request',
      });
      expect(fieldsOf(bad)).toEqual(['priority']);
    }
    // Nothing was made by the refused requests.
    expect((await http('GET', '/v1/runs', { key: t.key })).json.runs).toHaveLength(2);
  }, 60_000);

  it('describes weight and priority in the OpenAPI document', async () => {
    const doc = (await http('GET', '/docs/json')).json;
    const create = doc.paths['/v1/runs'].post.requestBody.content['application/json'].schema;
    expect(create.properties.priority.enum).toEqual(['interactive', 'batch']);
    expect(create.required).not.toContain('priority');
    const run = doc.paths['/v1/runs/{run_id}'].get.responses[200].content['application/json'].schema;
    expect(run.properties.priority.enum).toEqual(['interactive', 'batch']);
    const tenant = doc.paths['/v1/admin/tenants/{tenant_id}'];
    const patch = tenant.patch.requestBody.content['application/json'].schema;
    expect(patch.properties.weight).toMatchObject({ type: 'number', maximum: 1000, nullable: true });
    expect(tenant.get.responses[200].content['application/json'].schema.properties.weight.type).toBe(
      'number',
    );
  });
});

describe('CORS for browser clients', () => {
  const ORIGIN = 'http://console.example:5173';

  it("answers an allowed origin's preflight with the headers the API takes, and exposes the run's location", async () => {
    const preflight = await fetch(`${stack.gatewayUrl}/v1/runs`, {
      method: 'OPTIONS',
      headers: {
        Origin: ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'x-api-key, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-api-key');
    const t = await tenantWithKey('cors');
    const created = await fetch(`${stack.gatewayUrl}/v1/runs`, {
      method: 'POST',
      headers: { Origin: ORIGIN, Authorization: `Bearer ${t.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ input: { prompt: 'what is 2+3*4?' } }),
    });
    expect(created.status).toBe(202);
    expect(created.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(created.headers.get('access-control-expose-headers')).toContain('Content-Location');
  });

  it('gives any other origin no CORS headers', async () => {
    const res = await fetch(`${stack.gatewayUrl}/v1/runs`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
