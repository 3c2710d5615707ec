import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SecretBox } from '@switchyard/config';
import { type ScriptedRequest, TestStack, waitFor } from '@switchyard/testing';

// Registry writes through the admin API are in force for the very next run, although the
// services cache the registry for ten minutes here: every call knows the registry's revision as of
// its start (a read stands for the calls of the next SWITCHYARD_MODEL_REGISTRY_LEASE_MS, and the
// gateway holds a write's response as long), and the gateway's `sy.registry.changed` notice reloads
// the copies ahead of it.

const LEASE_MS = 120;

const ADMIN = `admin_${'c'.repeat(24)}`;
const skeleton = JSON.parse(readFileSync(join(__dirname, 'fixtures/skeleton.script.json'), 'utf8')) as {
  rules: unknown[];
};
let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/skeleton.script.json',
    env: {
      SWITCHYARD_ADMIN_TOKEN: ADMIN,
      SWITCHYARD_SECRET_KEY: randomBytes(32).toString('hex'),
      SWITCHYARD_MODEL_REGISTRY_TTL_MS: '600000',
      SWITCHYARD_MODEL_REGISTRY_LEASE_MS: String(LEASE_MS),
    },
  });
  // One key of this spec is always rate limited; the skeleton answers everything else.
  const res = await fetch(`${stack.llmUrl}/_script`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      ...skeleton,
      rules: [
        {
          name: 'limited-key',
          when: { api_key: 'sk-limited' },
          reply: { status: 429, retry_after: 60, error_message: 'slow down' },
        },
        ...skeleton.rules,
      ],
    }),
  });
  expect(res.status).toBe(200);
  // Every service has read (and cached) the registry before the writes below.
  expect((await runToEnd({ input: { prompt: 'what is 2+3*4?' } })).status).toBe('succeeded');
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever JSON the gateway answered
async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${stack.gatewayUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${ADMIN}`,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
async function runToEnd(body: unknown, started?: { run_id: string }): Promise<any> {
  const runId = started?.run_id ?? (await startRun(body));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  let run: any;
  await waitFor(
    'the run to end',
    async () => {
      run = (await stack.api('GET', `/v1/runs/${runId}`)).body;
      return ['succeeded', 'failed', 'cancelled'].includes(run.status);
    },
    60_000,
  );
  return run;
}

async function startRun(body: unknown): Promise<string> {
  const res = await stack.api('POST', '/v1/runs', body);
  expect(res.status).toBe(202);
  return res.body.run_id as string;
}

async function llmRequests(): Promise<ScriptedRequest[]> {
  return (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as ScriptedRequest[];
}

async function usageOf(runId: string): Promise<{ node: string; model_id: string; key_id: string }[]> {
  return (await admin('GET', `/v1/admin/usage?run_id=${runId}`)).json.usage;
}

/** A vendor on the scripted server, its keys (in this order), a model, and an agent pinning it everywhere. */
async function registry(name: string, secrets: string[]) {
  const vendor = await admin('POST', '/v1/admin/vendors', {
    name,
    kind: 'openai',
    base_url: `${stack.llmUrl}/v1`,
  });
  expect(vendor.status).toBe(201);
  const keys: string[] = [];
  for (const secret of secrets) {
    const key = await admin('POST', `/v1/admin/vendors/${vendor.json.id}/keys`, { secret, label: secret });
    expect(key.status).toBe(201);
    keys.push(key.json.id);
  }
  const model = await admin('POST', '/v1/admin/models', {
    vendor_id: vendor.json.id,
    name: 'scripted',
    category: 'text',
  });
  expect(model.status).toBe(201);
  const id = model.json.id as string;
  const agent = await stack.api('POST', '/v1/agents', {
    name: `${name}-agent`,
    models: { intake: id, planner: id, reflection: id, output: id, title: id },
  });
  expect(agent.status).toBe(201);
  return { vendorId: vendor.json.id as string, keys, modelId: id, agentId: agent.body.id as string };
}

describe('registry changes apply at once', () => {
  it('a vendor, keys, model and agent made through the admin API serve a run started in the same second', async () => {
    const t0 = Date.now();
    const made = await registry('fresh', ['sk-limited', 'sk-healthy']);
    const runId = await startRun({ agent_id: made.agentId, input: { prompt: 'what is 2+3*4?' } });
    expect(Date.now() - t0).toBeLessThan(1000);

    const run = await runToEnd(undefined, { run_id: runId });
    expect(run.status).toBe('succeeded');
    expect(run.output.answer).toContain('14');
    const [limited, healthy] = made.keys;
    const pinned = (await usageOf(runId)).filter((u) => u.model_id === made.modelId);
    expect(new Set(pinned.map((u) => u.node))).toEqual(
      new Set(['intake', 'planner', 'reflection', 'output']),
    );
    expect(pinned.every((u) => u.key_id === healthy)).toBe(true);
    expect(pinned.some((u) => u.key_id === limited)).toBe(false);
  }, 90_000);

  it('a key revoked through the admin API is not used by a run started right after the revoke returned', async () => {
    const made = await registry('revocable', ['sk-first', 'sk-second']);
    const [first, second] = made.keys;
    // Both keys serve (round-robin), and every service has them in its copy.
    const warm = await runToEnd({ agent_id: made.agentId, input: { prompt: 'what is 2+3*4?' } });
    expect(warm.status).toBe('succeeded');
    expect(new Set((await usageOf(warm.run_id)).map((u) => u.key_id))).toEqual(new Set([first, second]));

    const since = (await llmRequests()).length;
    const sent = performance.now();
    const revoked = await admin('DELETE', `/v1/admin/vendors/${made.vendorId}/keys/${first}`);
    // The response waited out the services' lease on the registry's revision.
    expect(performance.now() - sent).toBeGreaterThanOrEqual(LEASE_MS);
    expect(revoked.status).toBe(200);
    expect(revoked.json.status).toBe('revoked');
    const run = await runToEnd({ agent_id: made.agentId, input: { prompt: 'what is 2+3*4?' } });
    expect(run.status).toBe('succeeded');

    const used = (await llmRequests()).slice(since);
    expect(used.length).toBeGreaterThanOrEqual(4);
    expect(used.filter((r) => r.api_key_fingerprint === SecretBox.fingerprint('sk-first'))).toEqual([]);
    const pinned = (await usageOf(run.run_id)).filter((u) => u.model_id === made.modelId);
    expect(pinned.length).toBeGreaterThanOrEqual(4);
    expect(pinned.every((u) => u.key_id === second)).toBe(true);
  }, 90_000);

  it('fails with model_not_found only for a model that does not exist', async () => {
    const agent = await stack.api('POST', '/v1/agents', {
      name: 'ghost-agent',
      models: { intake: randomUUID() },
    });
    expect(agent.status).toBe(201);
    const run = await runToEnd({ agent_id: agent.body.id, input: { prompt: 'what is 2+3*4?' } });
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('model_not_found');
  }, 60_000);
});
