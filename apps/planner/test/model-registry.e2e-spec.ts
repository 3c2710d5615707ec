import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Action, Usage } from '@switchyard/contracts';
import { DEV_SECRET_KEY, SecretBox } from '@switchyard/config';
import { TestStack, readSse, sleep } from '@switchyard/testing';

// The model registry at work in the whole system: real services, Postgres, NATS, Redis, and the
// scripted model server, which answers 429 for the env key (key 1) and 401 for a refused key.

const KEY_ONE = 'sk-test-one'; // SWITCHYARD_LLM_API_KEY: seeded as the shared `env` key, rate limited
const KEY_TWO = 'sk-test-two'; // a second shared key that works
const KEY_REFUSED = 'sk-test-refused';
const KEY_TENANT = 'sk-test-tenant-own';
const ALL_KEYS = [KEY_ONE, KEY_TWO, KEY_REFUSED, KEY_TENANT];
const ADMIN = 'admin-token-for-registry-e2e';
const TTL_MS = 300;
const fp = SecretBox.fingerprint;
const box = new SecretBox(DEV_SECRET_KEY);

interface LlmRecord {
  path: string;
  rule: string | null;
  status?: number;
  api_key_fingerprint: string | null;
}
interface UsageRow {
  task_id: string;
  node: string;
  attempt: number;
  key_id: string;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

let stack: TestStack;
let keyTwoId: string;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/planner/test/fixtures/registry.script.json',
    env: {
      SWITCHYARD_LLM_API_KEY: KEY_ONE,
      SWITCHYARD_ADMIN_TOKEN: ADMIN,
      SWITCHYARD_MODEL_REGISTRY_TTL_MS: String(TTL_MS),
    },
  });
  // The services seeded the env key at start-up, so it is the oldest key: every process tries it first.
  keyTwoId = await addKey(KEY_TWO);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function addKey(secret: string, tenantId: string | null = null): Promise<string> {
  const [row] = await stack.sql<{ id: string }>(
    `INSERT INTO vendor_keys (vendor_id, label, tenant_id, secret_sealed, fingerprint)
     SELECT id, $1, $2::uuid, $3, $4 FROM vendors WHERE name = 'default' RETURNING id`,
    [`key ${fp(secret)}`, tenantId, box.seal(secret), fp(secret)],
  );
  expect(row?.id).toBeDefined();
  await sleep(TTL_MS * 2); // every service's registry cache has expired
  return row.id;
}

/** A tenant of its own with an API key for the gateway. */
async function newTenant(name: string): Promise<{ id: string; key: string }> {
  return stack.newTenant(name, ADMIN);
}

async function runToEnd(
  body: Record<string, unknown>,
  apiKey = stack.key,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever JSON the gateway answered
): Promise<{ runId: string; run: Record<string, any> }> {
  const auth = { Authorization: `Bearer ${apiKey}` };
  const res = await stack.api('POST', '/v1/runs', body, auth);
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, { headers: auth, timeoutMs: 60_000 });
  const run = await stack.api('GET', `/v1/runs/${runId}`, undefined, auth);
  return { runId, run: run.body };
}

async function llmRequests(): Promise<LlmRecord[]> {
  return (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as LlmRecord[];
}

const usageRows = (runId: string) =>
  stack.sql<UsageRow>(
    `SELECT task_id, node, attempt, key_id, prompt_tokens, completion_tokens, total_tokens
       FROM model_usage WHERE run_id = $1 ORDER BY id`,
    [runId],
  );

const sum = (us: Usage[]): Usage =>
  us.reduce(
    (s, u) => ({
      prompt_tokens: s.prompt_tokens + u.prompt_tokens,
      completion_tokens: s.completion_tokens + u.completion_tokens,
      total_tokens: s.total_tokens + u.total_tokens,
    }),
    { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  );

describe('model registry: keys, failover and metering', () => {
  let runId: string;
  let before: number;

  beforeAll(async () => {
    before = (await llmRequests()).length;
    ({ runId } = await runToEnd({ input: { prompt: 'what is 2+3*4?' } }));
  }, 90_000);

  it('key failover: key 1 answers 429, the run succeeds on key 2, usage rows name key 2', async () => {
    const run = await stack.api('GET', `/v1/runs/${runId}`);
    expect(run.body.status).toBe('succeeded');
    expect(run.body.output.answer).toContain('14');
    const requests = (await llmRequests()).slice(before);
    expect(requests.filter((r) => r.api_key_fingerprint === fp(KEY_ONE)).map((r) => r.status)).toContain(429);
    expect(requests.filter((r) => r.status === 200).map((r) => r.api_key_fingerprint)).toEqual(
      expect.arrayContaining([fp(KEY_TWO)]),
    );
    expect(new Set(requests.filter((r) => r.status === 200).map((r) => r.api_key_fingerprint))).toEqual(
      new Set([fp(KEY_TWO)]),
    );
    const rows = await usageRows(runId);
    expect(rows.length).toBeGreaterThanOrEqual(4); // intake, planner ×2, reflection, output
    expect(new Set(rows.map((r) => r.key_id))).toEqual(new Set([keyTwoId]));
  });

  it('usage: each action equals its final attempt in model_usage; the actions sum to the turn, the run and model_usage', async () => {
    const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as Action[];
    const rows = await usageRows(runId);
    const versions = await stack.sql<{ task_id: string; version: number }>(
      'SELECT task_id, version FROM state_deltas WHERE run_id = $1',
      [runId],
    );
    const taskOf = new Map(versions.map((v) => [v.version, v.task_id]));
    for (const a of actions) {
      const mine = rows.filter((r) => r.task_id === taskOf.get(a.id) && r.attempt === a.attempt);
      expect({ node: a.node, usage: a.usage }).toEqual({ node: a.node, usage: sum(mine) });
    }
    const run = await stack.api('GET', `/v1/runs/${runId}`);
    expect(run.body.usage).toEqual(sum(actions.map((a) => a.usage)));
    expect(run.body.usage).toEqual(sum(rows));
    expect(run.body.usage.total_tokens).toBeGreaterThan(0);
    // The thread's state (rebuilt from the checkpoint log) holds the same sum as the turn's usage.
    const state = await stack.api('GET', `/v1/threads/${run.body.thread_id}/state`);
    expect(state.status).toBe(200);
    expect(state.body.usage[state.body.turn]).toEqual(sum(rows));
  });

  it("a task's calls reach model_usage with its step: its last call in the step's own transaction", async () => {
    // now() is a transaction's start: the rows a step writes carry its delta's created_at; a row
    // the node service wrote itself (a call followed by more than UNSENT_CALL_MS of other work,
    // like the output's answer before its title call) is older than the step.
    const rows = await stack.sql<{ task_id: string; call_id: string | null; at: string; step_at: string }>(
      `SELECT u.task_id, u.call_id, u.created_at::text AS at, d.created_at::text AS step_at
         FROM model_usage u JOIN state_deltas d ON d.task_id = u.task_id AND d.run_id = u.run_id
        WHERE u.run_id = $1 ORDER BY u.id`,
      [runId],
    );
    const tasks = new Set(rows.map((r) => r.task_id));
    expect(tasks.size).toBeGreaterThanOrEqual(4); // intake, planner ×2, reflection, output
    expect(rows).toHaveLength((await usageRows(runId)).length); // every row's task has its step
    for (const task of tasks) {
      const mine = rows.filter((r) => r.task_id === task);
      expect(mine.at(-1)!.at).toBe(mine.at(-1)!.step_at);
      expect(mine.every((r) => r.at <= r.step_at)).toBe(true);
    }
    expect(new Set(rows.map((r) => r.call_id)).size).toBe(rows.length);
    expect(rows.every((r) => r.call_id !== null)).toBe(true);
  });

  it('no key appears in any log; the rate-limited key is logged by its fingerprint', () => {
    const files = readdirSync(stack.dir).filter((f) => f.endsWith('.log'));
    expect(files).toEqual(expect.arrayContaining(['planner.log', 'reflection.log', 'output.log']));
    let fingerprinted = 0;
    for (const file of files) {
      const text = readFileSync(join(stack.dir, file), 'utf8');
      for (const key of ALL_KEYS) {
        expect({ file, leaked: text.includes(key) }).toEqual({ file, leaked: false });
      }
      fingerprinted += text.includes(fp(KEY_ONE)) && text.includes('rate limited (429)') ? 1 : 0;
    }
    expect(fingerprinted).toBeGreaterThan(0);
  });
});

describe('model registry: refused and tenant keys', () => {
  it('a 401 quarantines the key (persisted with a reason) and the run still succeeds on another key', async () => {
    const tenant = await newTenant('registry-refused');
    const refusedId = await addKey(KEY_REFUSED, tenant.id); // the tenant's own key: tried first
    const before = (await llmRequests()).length;
    const { runId, run } = await runToEnd({ input: { prompt: 'what is 6*7?' } }, tenant.key);
    expect(run.status).toBe('succeeded');
    expect(run.output.answer).toContain('42');
    const requests = (await llmRequests()).slice(before);
    expect(requests.filter((r) => r.api_key_fingerprint === fp(KEY_REFUSED)).map((r) => r.status)).toEqual([
      401,
    ]);
    const [key] = await stack.sql<{ status: string; status_reason: string }>(
      'SELECT status, status_reason FROM vendor_keys WHERE id = $1',
      [refusedId],
    );
    expect(key.status).toBe('quarantined');
    expect(key.status_reason).toMatch(/HTTP 401/);
    expect(key.status_reason).not.toContain(KEY_REFUSED);
    const rows = await usageRows(runId);
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.key_id))).toEqual(new Set([keyTwoId]));
  }, 90_000);

  it("a tenant-bound key serves that tenant's runs and nobody else's", async () => {
    const tenant = await newTenant('registry-own-key');
    const ownId = await addKey(KEY_TENANT, tenant.id);
    const own = await runToEnd({ input: { prompt: 'what is 1+1?' } }, tenant.key);
    expect(own.run.status).toBe('succeeded');
    expect(new Set((await usageRows(own.runId)).map((r) => r.key_id))).toEqual(new Set([ownId]));
    const [t] = await stack.sql<{ used: number }>(
      'SELECT tokens_used::int AS used FROM tenants WHERE id = $1',
      [tenant.id],
    );
    expect(t.used).toBe(own.run.usage.total_tokens);

    const other = await runToEnd({ input: { prompt: 'what is 2+2?' } });
    expect(other.run.status).toBe('succeeded');
    const rows = await usageRows(other.runId);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.key_id)).not.toContain(ownId);
  }, 120_000);
});

describe('model registry: business-bound keys', () => {
  const admin = { Authorization: `Bearer ${ADMIN}` };
  const KEY_SHOP = 'sk-test-business-shop';

  it("a business-bound key (admin API) serves that business's runs only; usage rows name the business", async () => {
    const tenant = await newTenant('registry-business');
    const [vendor] = await stack.sql<{ id: string }>(`SELECT id FROM vendors WHERE name = 'default'`);
    const unbound = await stack.api(
      'POST',
      `/v1/admin/vendors/${vendor.id}/keys`,
      { secret: KEY_SHOP, business_id: 'shop' },
      admin,
    );
    expect(unbound.status).toBe(400);
    expect(unbound.body.error.details.map((d: { field: string }) => d.field)).toEqual(['business_id']);
    const created = await stack.api(
      'POST',
      `/v1/admin/vendors/${vendor.id}/keys`,
      { secret: KEY_SHOP, tenant_id: tenant.id, business_id: 'shop', label: 'shop line' },
      admin,
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      tenant_id: tenant.id,
      business_id: 'shop',
      fingerprint: fp(KEY_SHOP),
    });
    await sleep(TTL_MS * 2);

    const shop = await runToEnd(
      { input: { prompt: 'what is 4*4?' }, metadata: { business_id: 'shop' } },
      tenant.key,
    );
    expect(shop.run.status).toBe('succeeded');
    const shopRows = await stack.sql<{ key_id: string; business_id: string }>(
      'SELECT key_id, business_id FROM model_usage WHERE run_id = $1',
      [shop.runId],
    );
    expect(shopRows.length).toBeGreaterThan(0);
    expect(new Set(shopRows.map((r) => `${r.key_id}/${r.business_id}`))).toEqual(
      new Set([`${created.body.id}/shop`]),
    );

    const support = await runToEnd(
      { input: { prompt: 'what is 5*5?' }, metadata: { business_id: 'support' } },
      tenant.key,
    );
    expect(support.run.status).toBe('succeeded');
    const supportRows = await stack.sql<{ key_id: string; business_id: string }>(
      'SELECT key_id, business_id FROM model_usage WHERE run_id = $1',
      [support.runId],
    );
    expect(supportRows.map((r) => r.key_id)).not.toContain(created.body.id);
    expect(new Set(supportRows.map((r) => r.business_id))).toEqual(new Set(['support']));

    // Metering per business through the admin API.
    const usage = await stack.api(
      'GET',
      `/v1/admin/usage?tenant_id=${tenant.id}&business_id=shop`,
      undefined,
      admin,
    );
    expect(usage.status).toBe(200);
    expect(usage.body.usage).toHaveLength(shopRows.length);
    expect(new Set(usage.body.usage.map((u: { run_id: string }) => u.run_id))).toEqual(new Set([shop.runId]));

    const bad = await stack.api(
      'POST',
      '/v1/runs',
      { input: { prompt: 'x' }, metadata: { business_id: '' } },
      {
        Authorization: `Bearer ${tenant.key}`,
      },
    );
    expect(bad.status).toBe(400);
  }, 120_000);
});

describe('model registry: budgets and parsers', () => {
  it('a tenant over its token budget: the run fails with budget_exceeded before its next LLM call', async () => {
    const tenant = await newTenant('registry-budget');
    await stack.sql('UPDATE tenants SET token_budget = 1 WHERE id = $1', [tenant.id]);
    await sleep(TTL_MS * 2);
    const { runId, run } = await runToEnd({ input: { prompt: 'what is 3*3?' } }, tenant.key);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('budget_exceeded');
    expect(run.error.message).toMatch(/token budget is spent/);
    // Only the first call (intake) ran: it spent the budget.
    expect((await usageRows(runId)).map((r) => r.node)).toEqual(['intake']);
  }, 90_000);

  it('an unparseable reply is retried with the error fed back: success after exactly 2 calls, both metered', async () => {
    const before = (await llmRequests()).length;
    const { runId, run } = await runToEnd({ input: { prompt: 'what is 5+5? [intake-flaky]' } });
    expect(run.status).toBe('succeeded');
    const intakeCalls = (await llmRequests())
      .slice(before)
      .filter((r) => r.rule === 'intake-flaky' || r.rule === 'intake');
    expect(intakeCalls.map((r) => r.rule)).toEqual(['intake-flaky', 'intake']);
    const rows = (await usageRows(runId)).filter((r) => r.node === 'intake');
    expect(rows.map((r) => r.total_tokens)).toEqual([15, 26]);
    const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as Action[];
    expect(actions.find((a) => a.node === 'intake')?.usage).toEqual(sum(rows));
  }, 90_000);

  it("a pinned model's parser (max_retries = 2) makes exactly 3 calls, then the run fails clearly", async () => {
    await stack.sql(
      `INSERT INTO models (vendor_id, name, category, parser)
       SELECT id, 'scripted-strict', 'text', $1 FROM vendors WHERE name = 'default'`,
      [
        {
          intake: {
            schema: { type: 'object', properties: { scenario: { const: 'never' } } },
            max_retries: 2,
          },
        },
      ],
    );
    await sleep(TTL_MS * 2);
    const agent = await stack.api('POST', '/v1/agents', {
      name: 'strict',
      models: { intake: 'scripted-strict' },
    });
    expect(agent.status).toBe(201);
    const before = (await llmRequests()).length;
    const { runId, run } = await runToEnd({ input: { prompt: 'what is 9-1?' }, agent_id: agent.body.id });
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('unparseable_reply');
    expect(run.error.message).toMatch(
      /^intake: the model's reply did not parse after 3 calls: reply\/scenario must be equal to constant/,
    );
    expect((await llmRequests()).slice(before).filter((r) => r.rule === 'intake')).toHaveLength(3);
    expect(await usageRows(runId)).toHaveLength(3);
  }, 90_000);
});

describe('model registry: Anthropic and Ollama vendors', () => {
  const admin = { Authorization: `Bearer ${ADMIN}` };
  const KEY_ANTHROPIC = 'sk-ant-e2e-key';

  it.each([
    ['anthropic', 'claude-scripted', KEY_ANTHROPIC, '/v1/messages'],
    ['ollama', 'llama-scripted', null, '/api/chat'],
  ] as const)(
    'a run whose agent pins %s models for its nodes is served through that API, title call included, and metered',
    async (kind, name, secret, path) => {
      const vendor = await stack.api(
        'POST',
        '/v1/admin/vendors',
        { name: `${kind}-e2e`, kind, base_url: stack.llmUrl },
        admin,
      );
      expect(vendor.status).toBe(201);
      if (secret) {
        expect(
          (await stack.api('POST', `/v1/admin/vendors/${vendor.body.id}/keys`, { secret }, admin)).status,
        ).toBe(201);
      }
      const model = await stack.api(
        'POST',
        '/v1/admin/models',
        {
          vendor_id: vendor.body.id,
          name,
          category: 'text',
          price_per_1k_input: 0.003,
          price_per_1k_output: 0.015,
        },
        admin,
      );
      expect(model.status).toBe(201);
      await sleep(TTL_MS * 2);
      const agent = await stack.api('POST', '/v1/agents', {
        name: `${kind} agent`,
        // No pin for the title: it follows the output's model, never the environment's default.
        models: { intake: name, planner: name, reflection: name, output: name },
      });
      expect(agent.status).toBe(201);

      const before = (await llmRequests()).length;
      const { runId, run } = await runToEnd({ input: { prompt: 'what is 6*7?' }, agent_id: agent.body.id });
      expect(run.status).toBe('succeeded');
      expect(run.output.answer).toBe('The answer is 42.');
      const requests = (await llmRequests()).slice(before);
      // intake, planner (tool call), reflection, planner (done), output (streamed), title
      expect(requests.map((r) => r.rule)).toEqual(
        expect.arrayContaining([
          'intake',
          'planner-calculate',
          'reflection',
          'planner-after-tool',
          'output',
          'title-default',
        ]),
      );
      expect(requests.every((r) => r.path === path && r.status === 200)).toBe(true);
      expect(new Set(requests.map((r) => r.api_key_fingerprint))).toEqual(
        new Set([secret ? fp(secret) : null]),
      );

      const rows = await stack.sql<UsageRow & { model_id: string; cost: string }>(
        `SELECT model_id, prompt_tokens, completion_tokens, total_tokens, cost FROM model_usage WHERE run_id = $1`,
        [runId],
      );
      expect(rows).toHaveLength(requests.length);
      expect(new Set(rows.map((r) => r.model_id))).toEqual(new Set([model.body.id]));
      expect(rows.every((r) => r.prompt_tokens > 0 && r.completion_tokens > 0 && Number(r.cost) > 0)).toBe(
        true,
      );
      expect(run.usage).toEqual(sum(rows));
    },
    90_000,
  );
});
