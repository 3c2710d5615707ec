import { randomUUID } from 'node:crypto';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { SecretBox } from '@switchyard/config';
import { ScriptedLlmProcess, type ScriptedRequest } from '@switchyard/testing';
import type { ChatModels } from './chat-models';
import { LlmCallException } from './llm-errors';
import { type LlmCallContext, runWithLlmCallContext } from './llm-call-context';
import { addKey, modelsOn, newTenant, openTestDatabase } from './registry-db.fixture';
import { invokeStructured } from './structured-call';
import { TaskCalls } from './task-calls';

// Against real Postgres (its own database) and the scripted model server over real HTTP.
jest.setTimeout(30_000);

const fp = SecretBox.fingerprint;
let llm: ScriptedLlmProcess;
let ds: DataSource;
let models: ChatModels;
let envKeyId: string;
let goodKeyId: string;

beforeAll(async () => {
  llm = await ScriptedLlmProcess.start({
    rules: [
      {
        name: 'busy-once',
        times: 1,
        when: { api_key: 'k-ok', any_includes: '[busy-once]' },
        reply: { status: 429, retry_after: 1 },
      },
      { name: 'rate-limited', when: { api_key: 'k-429' }, reply: { status: 429, retry_after: 60 } },
      {
        name: 'refused',
        when: { api_key: 'k-401' },
        reply: { status: 401, error_message: 'Incorrect API key provided: k-401' },
      },
      {
        name: 'forbidden',
        when: { api_key: 'k-403' },
        reply: { status: 403, error_message: 'This key (k-403) may not use this model' },
      },
      {
        name: 'weather',
        when: { tools_include: 'weather' },
        reply: { tool_calls: [{ name: 'weather', arguments: { city: 'Oslo' } }] },
      },
      {
        name: 'tool',
        when: { has_tools: true },
        reply: { tool_calls: [{ name: 'calculator', arguments: { expression: '1+1' } }] },
      },
      { name: 'too-big', when: { any_includes: '[big]' }, reply: { content: '{"answer": 5}' } },
      {
        name: 'good',
        reply: { content: '{"answer": 1}', usage: { prompt_tokens: 7, completion_tokens: 3 } },
      },
    ],
  });
  ds = await openTestDatabase('switchyard_test_models_registry');
  // The env key (seeded first, so tried first) is always rate limited; a second shared key works.
  models = modelsOn(ds, llm.url, 'k-429');
  await models.router.store.ensureSeeded();
  [{ id: envKeyId }] = (await ds.query(`SELECT id FROM vendor_keys WHERE label = 'env'`)) as { id: string }[];
  goodKeyId = await addKey(ds, 'k-ok');
}, 30_000);

afterAll(async () => {
  await llm?.stop();
  await ds?.destroy();
});

const ask = (text = 'hello') => [new SystemMessage('be brief'), new HumanMessage(text)];

async function newRequests<T>(fn: () => Promise<T>): Promise<{ result: T; requests: ScriptedRequest[] }> {
  const before = (await llm.requests()).length;
  const result = await fn();
  return { result, requests: (await llm.requests()).slice(before) };
}

async function usageRows(taskId: string) {
  return (await ds.query(
    `SELECT key_id, node, attempt, prompt_tokens, completion_tokens, total_tokens, cost::float8 AS cost
       FROM model_usage WHERE task_id = $1 ORDER BY id`,
    [taskId],
  )) as { key_id: string; node: string; attempt: number; total_tokens: number; cost: number }[];
}

function ctx(tenantId: string, businessId?: string): LlmCallContext {
  return {
    run_id: randomUUID(),
    task_id: randomUUID(),
    node: 'planner',
    attempt: 1,
    tenant_id: tenantId,
    ...(businessId ? { business_id: businessId } : {}),
  };
}

describe('env seeding', () => {
  it('is idempotent across processes: one default vendor, one env key, one model', async () => {
    await Promise.all([
      modelsOn(ds, llm.url, 'k-429').router.store.ensureSeeded(),
      modelsOn(ds, llm.url, 'k-429').router.store.ensureSeeded(),
    ]);
    const [counts] = (await ds.query(
      `SELECT (SELECT count(*)::int FROM vendors WHERE name = 'default') AS vendors,
              (SELECT count(*)::int FROM vendor_keys WHERE label = 'env') AS keys,
              (SELECT count(*)::int FROM models WHERE name = 'scripted') AS models`,
    )) as Record<string, number>[];
    expect(counts).toEqual({ vendors: 1, keys: 1, models: 1 });
    const [key] = (await ds.query(`SELECT secret_sealed, fingerprint FROM vendor_keys WHERE id = $1`, [
      envKeyId,
    ])) as {
      secret_sealed: string;
      fingerprint: string;
    }[];
    expect(key.secret_sealed).not.toContain('k-429');
    expect(key.fingerprint).toBe(fp('k-429'));
  });
});

describe('key failover and metering', () => {
  it('fails over from a rate-limited key to the next and meters the call against the key that served it', async () => {
    const tenant = await newTenant(ds);
    const c = ctx(tenant);
    const { result, requests } = await newRequests(() =>
      runWithLlmCallContext(c, () => models.chat({ role: 'planner' }).invoke(ask())),
    );
    expect(result.content).toBe('{"answer": 1}');
    expect(requests.map((r) => [r.api_key_fingerprint, r.status])).toEqual([
      [fp('k-429'), 429],
      [fp('k-ok'), 200],
    ]);
    expect(await usageRows(c.task_id!)).toEqual([
      expect.objectContaining({ key_id: goodKeyId, node: 'planner', attempt: 1, total_tokens: 10 }),
    ]);
    const [t] = (await ds.query('SELECT tokens_used::int AS used FROM tenants WHERE id = $1', [tenant])) as {
      used: number;
    }[];
    expect(t.used).toBe(10);

    // The rate-limited key rests until its Retry-After: the next call goes straight to the other key.
    const again = await newRequests(() =>
      runWithLlmCallContext(ctx(tenant), () => models.chat({ role: 'planner' }).invoke(ask())),
    );
    expect(again.requests.map((r) => r.api_key_fingerprint)).toEqual([fp('k-ok')]);
  });

  it('waits for a key whose short Retry-After runs out when every key rests, then uses it', async () => {
    const started = Date.now();
    const { result, requests } = await newRequests(() => models.chat().invoke(ask('[busy-once]')));
    expect(result.content).toBe('{"answer": 1}');
    const tries = requests.filter((r) => r.api_key_fingerprint === fp('k-ok'));
    expect(tries.map((r) => [r.rule, r.status])).toEqual([
      ['busy-once', 429],
      ['good', 200],
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('streams through the registry and meters the streamed usage', async () => {
    const c = ctx(await newTenant(ds));
    const stream = await runWithLlmCallContext(c, () => models.chat().stream(ask()));
    let text = '';
    for await (const chunk of stream) {
      text += typeof chunk.content === 'string' ? chunk.content : '';
    }
    expect(text).toBe('{"answer": 1}');
    expect(await usageRows(c.task_id!)).toEqual([
      expect.objectContaining({ key_id: goodKeyId, total_tokens: 10 }),
    ]);
  });

  it('binds tools for the concrete client', async () => {
    const reply = await models
      .chat()
      .bindTools([
        { type: 'function', function: { name: 'calculator', description: 'math', parameters: {} } },
      ])
      .invoke(ask());
    expect(reply.tool_calls?.map((t) => [t.name, t.args])).toEqual([['calculator', { expression: '1+1' }]]);
  });

  it('binds a tool set or a reply schema once per client and reuses it; another one is bound anew', async () => {
    // ChatOpenAI's withConfig (behind bindTools and the json_schema binding) builds a whole new
    // client; a node asks with the same tools and schema on every call.
    const fn = (name: string) => ({
      type: 'function' as const,
      function: { name, description: `${name} (binding test)`, parameters: {} },
    });
    const built = jest.spyOn(ChatOpenAI.prototype, 'withConfig');
    try {
      const named = async (names: string[]) => {
        const out = [];
        for (const name of names) {
          const reply = await models
            .chat()
            .bindTools([fn(name)])
            .invoke(ask());
          out.push(reply.tool_calls?.map((t) => t.name));
        }
        return out;
      };
      // The first round binds each set (on every key client it tries: the env key fails over).
      expect(await named(['calculator', 'weather'])).toEqual([['calculator'], ['weather']]);
      const bound = built.mock.calls.length;
      expect(bound).toBeGreaterThanOrEqual(2);
      expect(await named(['calculator', 'weather', 'calculator'])).toEqual([
        ['calculator'],
        ['weather'],
        ['calculator'],
      ]);
      expect(built).toHaveBeenCalledTimes(bound);

      const schemas = [
        z.object({ answer: z.number() }),
        z.object({ answer: z.number(), note: z.string().optional() }),
      ];
      const structured = async (order: number[]) =>
        (
          await newRequests(async () => {
            for (const i of order) {
              await invokeStructured(models.chat(), ask(), schemas[i], {
                maxRetries: 0,
                label: 'binding test',
              });
            }
          })
        ).requests.map((r) => Object.keys((r.native_schema as { properties: object }).properties));
      expect(await structured([0, 1])).toEqual([['answer'], ['answer', 'note']]);
      const withSchemas = built.mock.calls.length;
      expect(withSchemas).toBe(bound + 2);
      expect(await structured([1, 0, 1])).toEqual([['answer', 'note'], ['answer'], ['answer', 'note']]);
      expect(built).toHaveBeenCalledTimes(withSchemas);
    } finally {
      built.mockRestore();
    }
  });

  it.each([
    ['k-401', 401, /^HTTP 401 from the vendor: .*Incorrect API key provided/],
    ['k-403', 403, /^HTTP 403 from the vendor: .*may not use this model/],
  ] as const)(
    'quarantines a key the vendor refuses (%s), redacts it, and succeeds on another key',
    async (secret, status, reason) => {
      const tenant = await newTenant(ds);
      const badId = await addKey(ds, secret, { tenantId: tenant });
      const c = ctx(tenant);
      const { result, requests } = await newRequests(() =>
        runWithLlmCallContext(c, () => models.chat().invoke(ask())),
      );
      expect(result.content).toBe('{"answer": 1}');
      expect(requests.map((r) => [r.api_key_fingerprint, r.status])).toEqual([
        [fp(secret), status],
        [fp('k-ok'), 200],
      ]);
      const [key] = (await ds.query('SELECT status, status_reason FROM vendor_keys WHERE id = $1', [
        badId,
      ])) as {
        status: string;
        status_reason: string;
      }[];
      expect(key.status).toBe('quarantined');
      expect(key.status_reason).toMatch(reason);
      expect(key.status_reason).not.toContain(secret);
      expect(await usageRows(c.task_id!)).toEqual([expect.objectContaining({ key_id: goodKeyId })]);
    },
  );

  it("uses a tenant's own key for that tenant only", async () => {
    const owner = await newTenant(ds);
    const other = await newTenant(ds);
    const ownId = await addKey(ds, 'k-own', { tenantId: owner });
    const mine = await newRequests(() =>
      runWithLlmCallContext(ctx(owner), () => models.chat().invoke(ask())),
    );
    expect(mine.requests.map((r) => r.api_key_fingerprint)).toEqual([fp('k-own')]);
    for (let i = 0; i < 3; i++) {
      const c = ctx(other);
      const theirs = await newRequests(() => runWithLlmCallContext(c, () => models.chat().invoke(ask())));
      expect(theirs.requests.map((r) => r.api_key_fingerprint)).not.toContain(fp('k-own'));
      expect((await usageRows(c.task_id!)).map((r) => r.key_id)).not.toContain(ownId);
    }
  });

  it("uses a business's own key for that business only, then the tenant's, and meters the business", async () => {
    const tenant = await newTenant(ds);
    const shopId = await addKey(ds, 'k-shop', { tenantId: tenant, businessId: 'shop' });
    const tenantKeyId = await addKey(ds, 'k-tenant-wide', { tenantId: tenant });
    const shop = ctx(tenant, 'shop');
    const served = await newRequests(() => runWithLlmCallContext(shop, () => models.chat().invoke(ask())));
    expect(served.requests.map((r) => r.api_key_fingerprint)).toEqual([fp('k-shop')]);
    const [row] = (await ds.query('SELECT key_id, business_id FROM model_usage WHERE task_id = $1', [
      shop.task_id,
    ])) as { key_id: string; business_id: string }[];
    expect(row).toEqual({ key_id: shopId, business_id: 'shop' });
    for (const c of [ctx(tenant, 'support'), ctx(tenant)]) {
      const other = await newRequests(() => runWithLlmCallContext(c, () => models.chat().invoke(ask())));
      expect(other.requests.map((r) => r.api_key_fingerprint)).toEqual([fp('k-tenant-wide')]);
      expect((await usageRows(c.task_id!)).map((r) => r.key_id)).toEqual([tenantKeyId]);
    }
  });

  it('refuses a call once the tenant spent its token budget (budget_exceeded, not retryable)', async () => {
    const tenant = await newTenant(ds, 15);
    await runWithLlmCallContext(ctx(tenant), () => models.chat().invoke(ask()));
    await runWithLlmCallContext(ctx(tenant), () => models.chat().invoke(ask()));
    const { result: err, requests } = await newRequests(() =>
      runWithLlmCallContext(ctx(tenant), () => models.chat().invoke(ask())).catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(LlmCallException);
    expect(err).toMatchObject({ code: 'budget_exceeded', retryable: false });
    expect((err as Error).message).toContain('20 of 15 tokens');
    expect(requests).toHaveLength(0);
  });

  describe("a task's calls (TaskCalls: the delta carries them)", () => {
    const inTask = (c: LlmCallContext) => runWithLlmCallContext(c, () => models.chat().invoke(ask()));

    it('leaves the row for the delta: nothing written until the task takes it; a later call writes its own', async () => {
      const calls = new TaskCalls(60_000);
      const c = { ...ctx(await newTenant(ds)), calls };
      await inTask(c);
      expect(await usageRows(c.task_id!)).toEqual([]);
      const rows = await calls.take();
      expect(rows).toEqual([
        expect.objectContaining({ task_id: c.task_id, key_id: goodKeyId, total_tokens: 10, node: 'planner' }),
      ]);
      // After the take (the delta is built), a call the node did not wait for writes its row itself.
      await inTask(c);
      expect((await usageRows(c.task_id!)).map((r) => r.total_tokens)).toEqual([10]);
      expect(await calls.take()).toEqual([]);
    });

    it('writes a row no delta took in time, and the take then waits for nothing more', async () => {
      const calls = new TaskCalls(5);
      const c = { ...ctx(await newTenant(ds)), calls };
      await inTask(c);
      await new Promise((r) => setTimeout(r, 100));
      expect(await calls.take()).toEqual([]);
      expect((await usageRows(c.task_id!)).map((r) => r.total_tokens)).toEqual([10]);
    });

    it('writes every row on flush (no delta will carry them), the taken ones given back too', async () => {
      const calls = new TaskCalls(60_000);
      const c = { ...ctx(await newTenant(ds)), calls };
      await inTask(c);
      const taken = await calls.take();
      await calls.flush(taken);
      expect((await usageRows(c.task_id!)).map((r) => r.total_tokens)).toEqual([10]);
    });

    it('numbers the rows of a batch in the order the calls were made', async () => {
      const calls = new TaskCalls(60_000);
      const c = { ...ctx(await newTenant(ds)), calls };
      for (let i = 0; i < 6; i++) {
        await inTask(c);
      }
      const taken = await calls.take(); // in call order
      // Written in one statement, as a step writes a delta's calls: their ids follow the calls.
      await calls.flush(taken);
      const written = (await ds.query('SELECT call_id FROM model_usage WHERE task_id = $1 ORDER BY id', [
        c.task_id,
      ])) as { call_id: string }[];
      expect(written.map((r) => r.call_id)).toEqual(taken.map((r) => r.call_id));
    });

    it("counts the task's unwritten tokens against the tenant's budget", async () => {
      const tenant = await newTenant(ds, 15);
      const c = { ...ctx(tenant), calls: new TaskCalls(60_000) };
      await inTask(c);
      await inTask(c); // 10 tokens unwritten, under 15
      const err = await inTask(c).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'budget_exceeded', retryable: false });
      expect((err as Error).message).toContain('20 of 15 tokens');
    });
  });

  it('fails clearly and retryably when every key is resting', async () => {
    const lone = modelsOn(ds, llm.url, 'k-429');
    await ds.query(`UPDATE vendor_keys SET status = 'revoked' WHERE id = $1`, [goodKeyId]);
    try {
      const err = await lone
        .chat()
        .invoke(ask())
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'llm_rate_limited', retryable: true });
      expect((err as Error).message).toMatch(
        /every key of model "scripted" of vendor "default" is rate limited/,
      );
    } finally {
      await ds.query(`UPDATE vendor_keys SET status = 'active' WHERE id = $1`, [goodKeyId]);
    }
  });
});

describe('registry reply parser', () => {
  const Answer = z.object({ answer: z.number() });

  afterEach(async () => {
    await ds.query(`UPDATE models SET parser = NULL`);
  });

  it("validates against the model's JSON Schema for the role and uses its max_retries as an absolute count", async () => {
    await ds.query(`UPDATE models SET parser = $1`, [
      { reflection: { schema: { type: 'object', properties: { answer: { maximum: 3 } } }, max_retries: 2 } },
    ]);
    const c = { ...ctx(await newTenant(ds)), node: 'reflection' };
    const { result: err, requests } = await newRequests(() =>
      runWithLlmCallContext(c, () =>
        invokeStructured(models.chat(), ask('[big]'), Answer, { maxRetries: 5, label: 'reflection' }),
      ).catch((e: unknown) => e),
    );
    expect(err).toMatchObject({ code: 'unparseable_reply', retryable: false });
    expect((err as Error).message).toMatch(/after 3 calls: reply\/answer must be <= 3/);
    expect(requests.filter((r) => r.rule === 'too-big')).toHaveLength(3);
    expect(await usageRows(c.task_id!)).toHaveLength(3);
  });

  it("ignores another role's parser; '*' applies to every role", async () => {
    await ds.query(`UPDATE models SET parser = $1`, [
      { output: { schema: { type: 'object', required: ['missing'] }, max_retries: 0 } },
    ]);
    const ok = await runWithLlmCallContext({ ...ctx(await newTenant(ds)), node: 'reflection' }, () =>
      invokeStructured(models.chat(), ask(), Answer, { maxRetries: 0, label: 'reflection' }),
    );
    expect(ok.value).toEqual({ answer: 1 });
    await ds.query(`UPDATE models SET parser = $1`, [
      { '*': { schema: { type: 'object', required: ['missing'] }, max_retries: 1 } },
    ]);
    const err = await invokeStructured(models.chat({ role: 'intake' }), ask(), Answer, {
      maxRetries: 0,
      label: 'intake',
    }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(
      /^intake: the model's reply did not parse after 2 calls: reply must have required property 'missing'/,
    );
  });
});
