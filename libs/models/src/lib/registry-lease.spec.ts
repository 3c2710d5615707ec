import { setTimeout as sleep } from 'node:timers/promises';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { DataSource } from 'typeorm';
import { SecretBox } from '@switchyard/config';
import { ScriptedLlmProcess } from '@switchyard/testing';
import { ModelsRepository } from './models.repository';
import { addKey, modelsOn, openTestDatabase } from './registry-db.fixture';

// The registry revision's lease (SWITCHYARD_MODEL_REGISTRY_LEASE_MS), against real Postgres and the
// scripted model server over real HTTP.
jest.setTimeout(30_000);

const fp = SecretBox.fingerprint;
let llm: ScriptedLlmProcess;
let ds: DataSource;
let envKeyId: string;

beforeAll(async () => {
  llm = await ScriptedLlmProcess.start({ rules: [{ name: 'good', reply: { content: 'ok' } }] });
  ds = await openTestDatabase('switchyard_test_models_lease');
  await modelsOn(ds, llm.url, 'k-env').router.store.ensureSeeded();
  [{ id: envKeyId }] = (await ds.query(`SELECT id FROM vendor_keys WHERE label = 'env'`)) as { id: string }[];
  // The shared keys take turns (KeyPool).
  await addKey(ds, 'k-second');
}, 30_000);

afterEach(async () => {
  jest.restoreAllMocks();
  await ds.query(`UPDATE vendor_keys SET status = 'active' WHERE id = $1`, [envKeyId]);
});

afterAll(async () => {
  await llm?.stop();
  await ds?.destroy();
});

const ask = () => [new SystemMessage('be brief'), new HumanMessage('hello')];

/** The key fingerprint the model server saw for one call of `models`. */
async function keyOfCall(models: ReturnType<typeof modelsOn>): Promise<string | null | undefined> {
  const before = (await llm.requests()).length;
  await models.chat().invoke(ask());
  const requests = (await llm.requests()).slice(before);
  expect(requests).toHaveLength(1);
  return requests[0].api_key_fingerprint;
}

describe('the registry revision lease', () => {
  it('lets one revision read stand for the calls that start within the lease; a notice ends it', async () => {
    const models = modelsOn(ds, llm.url, 'k-env', { ttl: 600_000, lease: 60_000 });
    const reads = jest.spyOn(ModelsRepository.prototype, 'registryRevision');
    for (let i = 0; i < 5; i++) {
      await keyOfCall(models);
    }
    expect(reads).toHaveBeenCalledTimes(1);
    // What `sy.registry.changed` does: the next call reads the revision again.
    models.router.store.invalidate();
    await keyOfCall(models);
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('reads before every call with lease 0', async () => {
    const models = modelsOn(ds, llm.url, 'k-env', { ttl: 600_000, lease: 0 });
    const reads = jest.spyOn(ModelsRepository.prototype, 'registryRevision');
    for (let i = 0; i < 3; i++) {
      await keyOfCall(models);
    }
    expect(reads).toHaveBeenCalledTimes(3);
  });

  it('never uses a key revoked a lease before the call started (what the gateway waits)', async () => {
    const lease = 300;
    const models = modelsOn(ds, llm.url, 'k-env', { ttl: 600_000, lease });
    // The keys take turns; a lease is held on the registry with both active…
    const before = [await keyOfCall(models), await keyOfCall(models)];
    expect(before.sort()).toEqual([fp('k-env'), fp('k-second')].sort());
    // …when the env key is revoked (no notice reaches this process).
    await ds.query(`UPDATE vendor_keys SET status = 'revoked' WHERE id = $1`, [envKeyId]);
    // RegistryChangedInterceptor holds the revoke's response this long after the commit.
    await sleep(lease + 2);
    const after = [];
    for (let i = 0; i < 4; i++) {
      after.push(await keyOfCall(models));
    }
    expect(after).toEqual(Array(4).fill(fp('k-second')));
  });
});
