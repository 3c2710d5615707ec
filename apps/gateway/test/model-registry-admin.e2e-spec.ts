import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { SERVICE_APPS, TestStack, freePort, waitFor } from '@switchyard/testing';

// The model-registry admin API against the real gateway: vendors, write-only keys sealed at
// rest, endpoints, models with validated parsers, tenant token budgets, and the usage read side.

const ADMIN = `admin_${'r'.repeat(24)}`;
const SECRET_KEY = randomBytes(32).toString('hex');
// Distinctive, so a leak anywhere (response, log, table) is found by a plain substring search.
const SECRET = `sk-e2e-LEAKCANARY-${randomBytes(12).toString('hex')}`;
const MISSING = '00000000-0000-4000-8000-000000000000';
let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/skeleton.script.json',
    env: {
      SWITCHYARD_ADMIN_TOKEN: ADMIN,
      SWITCHYARD_SECRET_KEY: SECRET_KEY,
      // The services cache the registry tables; registry writes here must reach the next run.
      SWITCHYARD_MODEL_REGISTRY_TTL_MS: '0',
    },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever JSON the gateway answered
type Res = { status: number; text: string; json: any };
const responses: string[] = [];

async function admin(method: string, path: string, body?: unknown, token = ADMIN): Promise<Res> {
  const res = await fetch(`${stack.gatewayUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  responses.push(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

const fields = (r: Res): string[] => (r.json?.error?.details ?? []).map((d: { field: string }) => d.field);

async function vendor(name: string, kind = 'openai'): Promise<string> {
  const res = await admin('POST', '/v1/admin/vendors', {
    name,
    kind,
    base_url: 'https://api.example.test/v1',
  });
  expect(res.status).toBe(201);
  return res.json.id;
}

describe('vendors', () => {
  it('creates, lists and reads vendors; a taken name is 409; bad bodies are 400 naming the field', async () => {
    const created = await admin('POST', '/v1/admin/vendors', { name: 'acme', kind: 'anthropic' });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.any(String),
      name: 'acme',
      kind: 'anthropic',
      base_url: null,
      created_at: expect.any(String),
    });
    expect((await admin('POST', '/v1/admin/vendors', { name: 'acme', kind: 'openai' })).status).toBe(409);
    const list = await admin('GET', '/v1/admin/vendors');
    expect(list.status).toBe(200);
    expect(list.json.vendors.map((v: { name: string }) => v.name)).toContain('acme');
    expect((await admin('GET', `/v1/admin/vendors/${created.json.id}`)).json.name).toBe('acme');

    const badKind = await admin('POST', '/v1/admin/vendors', { name: 'x', kind: 'azure' });
    expect(badKind.status).toBe(400);
    expect(badKind.json.error.code).toBe('invalid_request');
    expect(fields(badKind)).toEqual(['kind']);
    expect(
      fields(await admin('POST', '/v1/admin/vendors', { name: 'x', kind: 'ollama', base_url: 'nope' })),
    ).toEqual(['base_url']);
    expect(fields(await admin('POST', '/v1/admin/vendors', { kind: 'ollama' }))).toEqual(['name']);
  });

  it('answers 404 for unknown vendors, 400 for malformed ids, 401 without the admin token', async () => {
    expect((await admin('GET', `/v1/admin/vendors/${MISSING}`)).status).toBe(404);
    expect((await admin('GET', `/v1/admin/vendors/${MISSING}/keys`)).status).toBe(404);
    expect((await admin('GET', `/v1/admin/vendors/${MISSING}/endpoints`)).status).toBe(404);
    const keyForMissing = await admin('POST', `/v1/admin/vendors/${MISSING}/keys`, { secret: SECRET });
    expect(keyForMissing.status).toBe(404);
    expect(keyForMissing.json.error).toEqual({ code: 'not_found', message: 'vendor not found' });
    expect(
      (
        await admin('POST', `/v1/admin/vendors/${MISSING}/endpoints`, {
          url: 'http://e/v1',
          categories: ['text'],
        })
      ).status,
    ).toBe(404);
    expect((await admin('GET', '/v1/admin/vendors/not-a-uuid')).status).toBe(400);
    expect((await admin('GET', '/v1/admin/vendors', undefined, 'wrong-token-wrong-token')).status).toBe(401);
    // A tenant API key is not an admin token.
    expect((await admin('GET', '/v1/admin/models', undefined, stack.key)).status).toBe(401);
  });
});

describe('vendor keys', () => {
  it('keeps the secret write-only: sealed at rest, never in a response nor in the log', async () => {
    const vendorId = await vendor('keys-vendor');
    const tenant = await admin('POST', '/v1/admin/tenants', { name: 'keys-tenant' });
    const created = await admin('POST', `/v1/admin/vendors/${vendorId}/keys`, {
      secret: SECRET,
      label: 'primary',
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.any(String),
      vendor_id: vendorId,
      label: 'primary',
      tenant_id: null,
      business_id: null,
      fingerprint: expect.stringMatching(/^[0-9a-f]{12}$/),
      status: 'active',
      status_reason: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const scoped = await admin('POST', `/v1/admin/vendors/${vendorId}/keys`, {
      secret: SECRET,
      tenant_id: tenant.json.id,
    });
    expect(scoped.status).toBe(201);
    expect(scoped.json.tenant_id).toBe(tenant.json.id);
    expect(scoped.json.fingerprint).toBe(created.json.fingerprint);

    // The same secret for the same vendor and tenant scope again: 409, and the message names
    // the key by fingerprint, not by its secret.
    const dup = await admin('POST', `/v1/admin/vendors/${vendorId}/keys`, { secret: SECRET });
    expect(dup.status).toBe(409);
    expect(dup.json.error.message).toContain(created.json.fingerprint);
    expect(
      (await admin('POST', `/v1/admin/vendors/${vendorId}/keys`, { secret: SECRET, tenant_id: MISSING }))
        .status,
    ).toBe(404);
    // Invalid bodies carrying the secret: 400 without echoing it.
    const invalid = await admin('POST', `/v1/admin/vendors/${vendorId}/keys`, {
      secret: ` ${SECRET}`,
      extra: 1,
    });
    expect(invalid.status).toBe(400);
    expect(fields(invalid).sort()).toEqual(['(body)', 'secret']);
    const malformed = await fetch(`${stack.gatewayUrl}/v1/admin/vendors/${vendorId}/keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
      body: `{"secret": "${SECRET}",`,
    });
    expect(malformed.status).toBe(400);
    responses.push(await malformed.text());

    const listed = await admin('GET', `/v1/admin/vendors/${vendorId}/keys`);
    expect(listed.json.keys.map((k: { id: string }) => k.id).sort()).toEqual(
      [created.json.id, scoped.json.id].sort(),
    );

    const stored = await stack.sql<{ secret_sealed: string }>(
      'SELECT * FROM vendor_keys WHERE vendor_id = $1',
      [vendorId],
    );
    expect(stored).toHaveLength(2);
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(JSON.stringify(stored)).not.toContain('LEAKCANARY');
    for (const row of stored) {
      expect(row.secret_sealed).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    }

    for (const text of responses) {
      expect(text).not.toContain('LEAKCANARY');
    }
    expect(stack.log('gateway').length).toBeGreaterThan(0);
    for (const service of SERVICE_APPS) {
      expect(stack.log(service)).not.toContain('LEAKCANARY');
    }
  });

  it('revokes a key for good and puts a quarantined one back', async () => {
    const vendorId = await vendor('revoke-vendor');
    const a = await admin('POST', `/v1/admin/vendors/${vendorId}/keys`, { secret: `${SECRET}-a` });
    const b = await admin('POST', `/v1/admin/vendors/${vendorId}/keys`, { secret: `${SECRET}-b` });

    const revoked = await admin('DELETE', `/v1/admin/vendors/${vendorId}/keys/${a.json.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.json).toMatchObject({
      id: a.json.id,
      status: 'revoked',
      status_reason: 'revoked by an admin',
    });
    expect((await admin('DELETE', `/v1/admin/vendors/${vendorId}/keys/${a.json.id}`)).json.status).toBe(
      'revoked',
    );
    const back = await admin('POST', `/v1/admin/vendors/${vendorId}/keys/${a.json.id}/reactivate`);
    expect(back.status).toBe(409);
    expect(back.json.error.code).toBe('conflict');
    // A revoked secret may be registered again (a new key row).
    expect(
      (await admin('POST', `/v1/admin/vendors/${vendorId}/keys`, { secret: `${SECRET}-a` })).status,
    ).toBe(201);

    // The runtime quarantines a failing key (status + reason); this is its write, done here by SQL.
    await stack.sql(
      `UPDATE vendor_keys SET status = 'quarantined', status_reason = '401 from vendor' WHERE id = $1`,
      [b.json.id],
    );
    expect(
      (await admin('GET', `/v1/admin/vendors/${vendorId}/keys`)).json.keys.find(
        (k: { id: string }) => k.id === b.json.id,
      ),
    ).toMatchObject({ status: 'quarantined', status_reason: '401 from vendor' });
    const reactivated = await admin('POST', `/v1/admin/vendors/${vendorId}/keys/${b.json.id}/reactivate`);
    expect(reactivated.status).toBe(200);
    expect(reactivated.json).toMatchObject({ id: b.json.id, status: 'active', status_reason: null });
    expect((await admin('POST', `/v1/admin/vendors/${vendorId}/keys/${b.json.id}/reactivate`)).status).toBe(
      200,
    );

    // A key of another vendor is not found under this one.
    const other = await vendor('revoke-other');
    expect((await admin('DELETE', `/v1/admin/vendors/${other}/keys/${b.json.id}`)).status).toBe(404);
    expect((await admin('POST', `/v1/admin/vendors/${other}/keys/${b.json.id}/reactivate`)).status).toBe(404);
    expect((await admin('DELETE', `/v1/admin/vendors/${vendorId}/keys/${MISSING}`)).status).toBe(404);
  });
});

describe('endpoints and models', () => {
  it('adds endpoints per category set; duplicates are 409; bad categories are 400', async () => {
    const vendorId = await vendor('endpoint-vendor');
    const ep = await admin('POST', `/v1/admin/vendors/${vendorId}/endpoints`, {
      url: 'https://embed.example.test/v1',
      categories: ['embedding'],
    });
    expect(ep.status).toBe(201);
    expect(ep.json).toMatchObject({
      vendor_id: vendorId,
      url: 'https://embed.example.test/v1',
      categories: ['embedding'],
    });
    const dup = await admin('POST', `/v1/admin/vendors/${vendorId}/endpoints`, {
      url: 'https://embed.example.test/v1',
      categories: ['text'],
    });
    expect(dup.status).toBe(409);
    const bad = await admin('POST', `/v1/admin/vendors/${vendorId}/endpoints`, {
      url: 'https://x.test',
      categories: ['text', 'sound'],
    });
    expect(bad.status).toBe(400);
    expect(fields(bad)).toEqual(['categories.1']);
    const list = await admin('GET', `/v1/admin/vendors/${vendorId}/endpoints`);
    expect(list.json.endpoints).toEqual([ep.json]);
  });

  it('registers models with prices and parsers; a parser schema that does not compile is 400 naming the role', async () => {
    const vendorId = await vendor('model-vendor');
    const parser = {
      planner: {
        schema: { type: 'object', properties: { todos: { type: 'array' } }, required: ['todos'] },
        max_retries: 2,
      },
      '*': { schema: { type: 'object' }, max_retries: 0 },
    };
    const created = await admin('POST', '/v1/admin/models', {
      vendor_id: vendorId,
      name: 'gpt-x',
      category: 'reasoning',
      context_window: 128000,
      price_per_1k_input: 0.0025,
      price_per_1k_output: 0.01,
      parser,
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.any(String),
      vendor_id: vendorId,
      name: 'gpt-x',
      category: 'reasoning',
      version: '',
      context_window: 128000,
      price_per_1k_input: 0.0025,
      price_per_1k_output: 0.01,
      parser,
      structured_output: null,
      created_at: expect.any(String),
    });
    const dup = await admin('POST', '/v1/admin/models', {
      vendor_id: vendorId,
      name: 'gpt-x',
      category: 'text',
    });
    expect(dup.status).toBe(409);
    const v2 = await admin('POST', '/v1/admin/models', {
      vendor_id: vendorId,
      name: 'gpt-x',
      version: '2',
      category: 'text',
    });
    expect(v2.status).toBe(201);
    expect(v2.json).toMatchObject({
      price_per_1k_input: 0,
      price_per_1k_output: 0,
      parser: null,
      context_window: null,
    });

    const badParser = await admin('POST', '/v1/admin/models', {
      vendor_id: vendorId,
      name: 'broken',
      category: 'text',
      parser: {
        output: { schema: { type: 'object' }, max_retries: 1 },
        reflection: { schema: { type: 'objekt' }, max_retries: 1 },
      },
    });
    expect(badParser.status).toBe(400);
    expect(fields(badParser)).toEqual(['parser.reflection.schema']);
    expect(badParser.json.error.details[0].message).toMatch(
      /^the schema for role "reflection" is not a valid JSON Schema: /,
    );
    expect(
      fields(
        await admin('POST', '/v1/admin/models', {
          vendor_id: vendorId,
          name: 'broken',
          category: 'text',
          parser: { output: { schema: { type: 'object' }, max_retries: 21 } },
        }),
      ),
    ).toEqual(['parser.output.max_retries']);
    expect(
      fields(await admin('POST', '/v1/admin/models', { vendor_id: vendorId, name: 'm', category: 'sound' })),
    ).toEqual(['category']);
    const noVendor = await admin('POST', '/v1/admin/models', {
      vendor_id: MISSING,
      name: 'm',
      category: 'text',
    });
    expect(noVendor.status).toBe(404);
    expect(noVendor.json.error.message).toBe('vendor not found');

    const mine = await admin('GET', `/v1/admin/models?vendor_id=${vendorId}`);
    expect(mine.json.models.map((m: { id: string }) => m.id)).toEqual([created.json.id, v2.json.id]);
    expect((await admin('GET', `/v1/admin/models/${created.json.id}`)).json).toEqual(created.json);
    expect((await admin('GET', `/v1/admin/models/${MISSING}`)).status).toBe(404);
    expect((await admin('GET', '/v1/admin/models?vendor=x')).status).toBe(400);
  });

  it('declares how a model returns structured replies; PATCH changes it and the parser, null clears', async () => {
    const vendorId = await vendor('structured-vendor', 'anthropic');
    const created = await admin('POST', '/v1/admin/models', {
      vendor_id: vendorId,
      name: 'claude-x',
      category: 'text',
      structured_output: 'prompt',
    });
    expect(created.status).toBe(201);
    expect(created.json.structured_output).toBe('prompt');
    const bad = await admin('POST', '/v1/admin/models', {
      vendor_id: vendorId,
      name: 'claude-y',
      category: 'text',
      structured_output: 'xml',
    });
    expect(bad.status).toBe(400);
    expect(fields(bad)).toEqual(['structured_output']);

    const url = `/v1/admin/models/${created.json.id}`;
    const toolCall = await admin('PATCH', url, { structured_output: 'tool_call' });
    expect(toolCall.status).toBe(200);
    expect(toolCall.json).toEqual({ ...created.json, structured_output: 'tool_call' });
    const parser = { intake: { schema: { type: 'object' }, max_retries: 1 } };
    expect((await admin('PATCH', url, { parser })).json).toMatchObject({
      parser,
      structured_output: 'tool_call',
    });
    const cleared = await admin('PATCH', url, { structured_output: null, parser: null });
    expect(cleared.json).toMatchObject({ parser: null, structured_output: null });
    expect((await admin('GET', url)).json).toEqual(cleared.json);

    expect((await admin('PATCH', url, {})).status).toBe(400);
    expect(fields(await admin('PATCH', url, { structured_output: 'yaml' }))).toEqual(['structured_output']);
    expect((await admin('PATCH', `/v1/admin/models/${MISSING}`, { structured_output: null })).status).toBe(
      404,
    );
    expect((await admin('PATCH', url, { structured_output: null }, stack.key)).status).toBe(401);
  });
});

describe('tenant token budgets', () => {
  it('sets, shows and clears a budget and resets the tokens used', async () => {
    const t = await admin('POST', '/v1/admin/tenants', { name: 'budget-tenant' });
    expect(t.json).toMatchObject({ token_budget: null, tokens_used: 0 });
    const set = await admin('PATCH', `/v1/admin/tenants/${t.json.id}`, { token_budget: 5000 });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({
      id: t.json.id,
      name: 'budget-tenant',
      token_budget: 5000,
      tokens_used: 0,
    });
    expect((await admin('GET', `/v1/admin/tenants/${t.json.id}`)).json.token_budget).toBe(5000);
    const listed = await admin('GET', '/v1/admin/tenants');
    expect(listed.json.tenants.find((x: { id: string }) => x.id === t.json.id)).toMatchObject({
      token_budget: 5000,
      tokens_used: 0,
    });

    expect(fields(await admin('PATCH', `/v1/admin/tenants/${t.json.id}`, { token_budget: -1 }))).toEqual([
      'token_budget',
    ]);
    expect(fields(await admin('PATCH', `/v1/admin/tenants/${t.json.id}`, { token_budget: 1.5 }))).toEqual([
      'token_budget',
    ]);
    expect(fields(await admin('PATCH', `/v1/admin/tenants/${t.json.id}`, {}))).toEqual(['(body)']);
    expect((await admin('PATCH', `/v1/admin/tenants/${MISSING}`, { token_budget: 1 })).status).toBe(404);
    expect((await admin('GET', `/v1/admin/tenants/${MISSING}`)).status).toBe(404);
    expect((await admin('POST', `/v1/admin/tenants/${MISSING}/usage/reset`)).status).toBe(404);

    // tokens_used is the runtime's counter; it is set here by SQL only to see the reset work.
    await stack.sql('UPDATE tenants SET tokens_used = 4200 WHERE id = $1', [t.json.id]);
    expect((await admin('GET', `/v1/admin/tenants/${t.json.id}`)).json.tokens_used).toBe(4200);
    const reset = await admin('POST', `/v1/admin/tenants/${t.json.id}/usage/reset`);
    expect(reset.status).toBe(200);
    expect(reset.json).toMatchObject({ token_budget: 5000, tokens_used: 0 });
    expect(
      (await admin('PATCH', `/v1/admin/tenants/${t.json.id}`, { token_budget: null })).json.token_budget,
    ).toBeNull();
  });
});

describe('usage', () => {
  it("reads a real run's metered calls: per run, per tenant, paged, joined to the actions", async () => {
    const started = await stack.api('POST', '/v1/runs', { input: { prompt: 'what is 2+3*4?' } });
    expect(started.status).toBe(202);
    const runId: string = started.body.run_id;
    let run: Res['json'];
    await waitFor('the run to end', async () => {
      run = (await stack.api('GET', `/v1/runs/${runId}`)).body;
      return ['succeeded', 'failed', 'cancelled'].includes(run.status);
    });
    expect(run.status).toBe('succeeded');
    expect(Array.isArray(run.usage_by_model)).toBe(true);

    const [{ id: tenantId }] = await stack.sql<{ id: string }>(
      `SELECT id FROM tenants WHERE name = 'default'`,
    );
    const byRun = await admin('GET', `/v1/admin/usage?run_id=${runId}`);
    expect(byRun.status).toBe(200);
    expect(byRun.json).toEqual({ usage: expect.any(Array), next_cursor: null });
    const rows: {
      run_id: string;
      tenant_id: string;
      action_id: number | null;
      model_id: string | null;
      key_id: string | null;
      node: string | null;
      prompt_tokens: number;
      completion_tokens: number;
      total_tokens: number;
      cost: number;
    }[] = byRun.json.usage;
    // Every model call of the run is metered: planning, planner, reflection, output, title…
    expect(rows.length).toBeGreaterThanOrEqual(2);
    // The default agent talks to the model and key seeded from SWITCHYARD_LLM_* (vendor `default`).
    const [seeded] = await stack.sql<{ model_id: string; key_id: string }>(
      `SELECT m.id AS model_id, k.id AS key_id FROM vendors v
       JOIN models m ON m.vendor_id = v.id AND m.name = 'scripted'
       JOIN vendor_keys k ON k.vendor_id = v.id AND k.label = 'env'
       WHERE v.name = 'default'`,
    );
    expect(seeded).toBeDefined();
    const versions = (
      await stack.sql<{ version: number }>('SELECT version FROM state_deltas WHERE run_id = $1', [runId])
    ).map((d) => d.version);
    for (const row of rows) {
      expect(row).toEqual({
        id: expect.stringMatching(/^\d+$/),
        tenant_id: tenantId,
        business_id: null,
        run_id: runId,
        // The version of one of this run's committed deltas: the action the call served.
        action_id: expect.any(Number),
        model_id: seeded.model_id,
        key_id: seeded.key_id,
        node: expect.stringMatching(/^(intake|planner|reflection|output)$/),
        prompt_tokens: expect.any(Number),
        completion_tokens: expect.any(Number),
        total_tokens: row.prompt_tokens + row.completion_tokens,
        cost: 0, // the seeded model has no prices
        created_at: expect.any(String),
      });
      expect(versions).toContain(row.action_id);
    }
    expect(new Set(rows.map((r) => r.node))).toEqual(new Set(['intake', 'planner', 'reflection', 'output']));
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    // Every call is metered: the rows add up to the run's own usage.
    expect(sum(rows.map((r) => r.total_tokens))).toBe(run.usage.total_tokens);
    // The run's per-model summary is the same calls added up.
    expect(sum(run.usage_by_model.map((m: { total_tokens: number }) => m.total_tokens))).toBe(
      sum(rows.map((r) => r.total_tokens)),
    );
    expect(new Set(run.usage_by_model.map((m: { model_id: string | null }) => m.model_id))).toEqual(
      new Set(rows.map((r) => r.model_id)),
    );

    // Per tenant, one row per page: the pages add up to the whole list, in the same order.
    const all = await admin('GET', `/v1/admin/usage?tenant_id=${tenantId}&limit=1000`);
    expect(all.json.next_cursor).toBeNull();
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Res = await admin(
        'GET',
        `/v1/admin/usage?tenant_id=${tenantId}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.json.usage.length).toBeLessThanOrEqual(1);
      paged.push(...page.json.usage.map((r: { id: string }) => r.id));
      cursor = page.json.next_cursor;
    } while (cursor && paged.length <= all.json.usage.length);
    expect(paged).toEqual(all.json.usage.map((r: { id: string }) => r.id));
    // The tenant's counter is the sum of its metered calls (0 = 0 before anything was metered).
    const tenant = await admin('GET', `/v1/admin/tenants/${tenantId}`);
    expect(tenant.json.tokens_used).toBe(
      sum(all.json.usage.map((r: { total_tokens: number }) => r.total_tokens)),
    );

    // Filters: unknown ids are 404, malformed ones and stray parameters 400.
    expect((await admin('GET', `/v1/admin/usage?run_id=${MISSING}`)).status).toBe(404);
    expect((await admin('GET', `/v1/admin/usage?tenant_id=${MISSING}`)).status).toBe(404);
    expect(fields(await admin('GET', '/v1/admin/usage?run_id=nope'))).toEqual(['run_id']);
    expect(fields(await admin('GET', '/v1/admin/usage?limit=0'))).toEqual(['limit']);
    expect(fields(await admin('GET', '/v1/admin/usage?cursor=garbage'))).toEqual(['cursor']);
    expect((await admin('GET', '/v1/admin/usage?runid=x')).status).toBe(400);
    const other = await admin('POST', '/v1/admin/tenants', { name: 'usage-other' });
    expect((await admin('GET', `/v1/admin/usage?tenant_id=${other.json.id}`)).json).toEqual({
      usage: [],
      next_cursor: null,
    });
  }, 90_000);
});

async function runToEnd(key: string, body: unknown): Promise<Res['json']> {
  const started = await stack.api('POST', '/v1/runs', body, { Authorization: `Bearer ${key}` });
  expect(started.status).toBe(202);
  let run: Res['json'];
  await waitFor('the run to end', async () => {
    run = (
      await stack.api('GET', `/v1/runs/${started.body.run_id}`, undefined, { Authorization: `Bearer ${key}` })
    ).body;
    return ['succeeded', 'failed', 'cancelled'].includes(run.status);
  });
  return run;
}

describe('the registry in use', () => {
  it('a model registered here, pinned by an agent, is called with its own key and priced per call', async () => {
    const vendorId = await vendor('priced-vendor');
    // Its own endpoint (the scripted server), so the vendor's base_url is not what is called.
    await admin('POST', `/v1/admin/vendors/${vendorId}/endpoints`, {
      url: `${stack.llmUrl}/v1`,
      categories: ['text'],
    });
    const key = await admin('POST', `/v1/admin/vendors/${vendorId}/keys`, {
      secret: 'scripted',
      label: 'priced',
    });
    const model = await admin('POST', '/v1/admin/models', {
      vendor_id: vendorId,
      name: 'scripted',
      category: 'text',
      price_per_1k_input: 1.5,
      price_per_1k_output: 2,
    });
    expect(model.status).toBe(201);
    const agent = await stack.api('POST', '/v1/agents', {
      name: 'priced-agent',
      models: { planner: model.json.id },
    });
    expect(agent.status).toBe(201);

    const run = await runToEnd(stack.key, { agent_id: agent.body.id, input: { prompt: 'what is 2+3*4?' } });
    expect(run.status).toBe('succeeded');
    const rows = (await admin('GET', `/v1/admin/usage?run_id=${run.run_id}`)).json.usage as {
      node: string;
      model_id: string;
      key_id: string;
      prompt_tokens: number;
      completion_tokens: number;
      cost: number;
    }[];
    const planner = rows.filter((r) => r.node === 'planner');
    expect(planner.length).toBeGreaterThan(0);
    for (const r of planner) {
      expect(r.model_id).toBe(model.json.id);
      expect(r.key_id).toBe(key.json.id);
      expect(r.cost).toBeCloseTo((r.prompt_tokens / 1000) * 1.5 + (r.completion_tokens / 1000) * 2, 6);
      expect(r.cost).toBeGreaterThan(0);
    }
    for (const r of rows.filter((x) => x.node !== 'planner')) {
      expect(r.model_id).not.toBe(model.json.id);
      expect(r.cost).toBe(0);
    }
    const priced = run.usage_by_model.find((m: { model_id: string }) => m.model_id === model.json.id);
    expect(priced.cost).toBeCloseTo(
      planner.reduce((a, r) => a + r.cost, 0),
      6,
    );
    expect(run.usage_by_model).toHaveLength(2);
  }, 90_000);

  it('a tenant over its token budget fails its run with budget_exceeded until the budget is lifted', async () => {
    const tenant = await admin('POST', '/v1/admin/tenants', { name: 'budgeted' });
    const apiKey = (await admin('POST', `/v1/admin/tenants/${tenant.json.id}/keys`, {})).json.key as string;
    expect((await admin('PATCH', `/v1/admin/tenants/${tenant.json.id}`, { token_budget: 10 })).status).toBe(
      200,
    );

    const failed = await runToEnd(apiKey, { input: { prompt: 'what is 2+3*4?' } });
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('budget_exceeded');
    // The first call was allowed (0 < 10) and counted; the next one was refused.
    const after = (await admin('GET', `/v1/admin/tenants/${tenant.json.id}`)).json;
    const usage = (await admin('GET', `/v1/admin/usage?tenant_id=${tenant.json.id}`)).json.usage as {
      total_tokens: number;
    }[];
    expect(usage).toHaveLength(1);
    expect(after.tokens_used).toBe(usage[0].total_tokens);
    expect(after.tokens_used).toBeGreaterThanOrEqual(10);

    expect((await admin('POST', `/v1/admin/tenants/${tenant.json.id}/usage/reset`)).json.tokens_used).toBe(0);
    expect((await admin('PATCH', `/v1/admin/tenants/${tenant.json.id}`, { token_budget: null })).status).toBe(
      200,
    );
    const ok = await runToEnd(apiKey, { input: { prompt: 'what is 2+3*4?' } });
    expect(ok.status).toBe('succeeded');
    expect((await admin('GET', `/v1/admin/tenants/${tenant.json.id}`)).json.tokens_used).toBe(
      ok.usage.total_tokens,
    );
  }, 90_000);
});

describe('start-up', () => {
  it('refuses to start the gateway with a malformed SWITCHYARD_SECRET_KEY, naming the variable', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [join(__dirname, '../../../dist/apps/gateway/src/main.js')], {
      env: {
        ...process.env,
        DATABASE_URL: stack.databaseUrl,
        REDIS_URL: stack.redisUrl,
        NATS_URL: stack.natsUrl,
        GATEWAY_PORT: String(port),
        SWITCHYARD_SECRET_KEY: 'too-short-LEAKCANARY',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    // Nest's own handler ends the process (exit 1) when a provider factory throws at start-up.
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(output).toMatch(/SWITCHYARD_SECRET_KEY \(set \(hidden\)\): must be 32 bytes/);
    expect(output).not.toContain('LEAKCANARY');
  }, 60_000);
});

describe('after everything', () => {
  it('no response and no service log ever carried a vendor secret', () => {
    expect(responses.length).toBeGreaterThan(50);
    for (const text of responses) {
      expect(text).not.toContain('LEAKCANARY');
    }
    for (const service of SERVICE_APPS) {
      expect(stack.log(service)).not.toContain('LEAKCANARY');
    }
  });
});
