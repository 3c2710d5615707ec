import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource, ensureDatabase, runMigrationsLocked } from '@switchyard/persistence';
import { AgentConfigError, RunAgentConfig } from './run-agent-config.service';
import { CollectionsRepository } from './collections.repository';
import { RunsRepository } from './runs.repository';
import { UserProfileLoader } from './user-profile.loader';

// The planner reads a run only within the task's tenant: another tenant's task learns nothing of
// it (not its agent, not its inputs, not its user's profile), against real Postgres.

let ds: DataSource;
let runs: RunsRepository;
let tenantA: string;
let tenantB: string;
let runId: string;

async function tenant(): Promise<string> {
  const [row] = (await ds.query(`INSERT INTO tenants (name) VALUES ($1) RETURNING id::text AS id`, [
    `t-${randomUUID()}`,
  ])) as { id: string }[];
  return row.id;
}

beforeAll(async () => {
  const url = new URL(process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = '/planner_runs_repository';
  await ensureDatabase(url.toString());
  ds = await createDataSource(url.toString(), { poolSize: 2, name: 'planner_runs_repository' });
  await runMigrationsLocked(ds);
  runs = new RunsRepository(ds);
  tenantA = await tenant();
  tenantB = await tenant();
  const threadId = randomUUID();
  runId = randomUUID();
  await ds.query(`INSERT INTO threads (id, tenant_id, agent_id) VALUES ($1, $2, 'default')`, [
    threadId,
    tenantA,
  ]);
  await ds.query(
    `INSERT INTO runs (id, tenant_id, thread_id, agent_id, status, input, agent_config, metadata)
     VALUES ($1, $2, $3, 'default', 'running', $4, $5, $6)`,
    [
      runId,
      tenantA,
      threadId,
      JSON.stringify({ inputs: { topic: { value: 'filters' } } }),
      JSON.stringify({ name: 'pinned' }),
      JSON.stringify({ user_id: 'u1' }),
    ],
  );
  // The same user id in both tenants: only the run's own tenant's profile may be read.
  for (const [t, city] of [
    [tenantA, 'Lyon'],
    [tenantB, 'Oslo'],
  ]) {
    await ds.query(`INSERT INTO user_profiles (tenant_id, user_id, profile) VALUES ($1, 'u1', $2)`, [
      t,
      JSON.stringify({ city }),
    ]);
  }
});

afterAll(async () => {
  await ds?.destroy();
});

describe('RunsRepository', () => {
  it("reads the run's pinned agent configuration in its tenant, nothing in another", async () => {
    expect(await runs.agentConfigOf(runId, tenantA)).toEqual({ agent_config: { name: 'pinned' } });
    expect(await runs.agentConfigOf(runId, tenantB)).toBeUndefined();
  });

  it("reads the run's inputs in its tenant, nothing in another", async () => {
    expect(await runs.graphInputsOf(runId, tenantA)).toEqual({
      inputs: { topic: { value: 'filters' } },
      inputs_json: null,
    });
    expect(await runs.graphInputsOf(runId, tenantB)).toBeUndefined();
  });

  it("reads the run's user's profile in its tenant, never the same id's in another", async () => {
    expect(await runs.userProfileOf(runId, tenantA)).toEqual({ user_id: 'u1', profile: { city: 'Lyon' } });
    expect(await runs.userProfileOf(runId, tenantB)).toBeUndefined();
    const loader = new UserProfileLoader(runs);
    expect(await loader.forRun(runId, tenantA)).toEqual({ user_id: 'u1', profile: { city: 'Lyon' } });
    expect(await loader.forRun(runId, tenantB)).toBeNull();
  });
});

describe('RunAgentConfig', () => {
  it("gives the run's agent for a task of its tenant and fails one of another tenant", async () => {
    const configs = new RunAgentConfig(runs);
    await expect(configs.forRun(runId, tenantA)).resolves.toMatchObject({
      agent: { name: 'pinned' },
      tenant_id: tenantA,
    });
    // Cached per tenant: the first answer is not handed to another tenant's task.
    await expect(configs.forRun(runId, tenantB)).rejects.toThrow(AgentConfigError);
  });
});

describe('CollectionsRepository', () => {
  it("gives the tenant's newest collections first, with their document counts", async () => {
    const tenantId = await tenant();
    const collection = async (name: string, at: string, t = tenantId) => {
      const [row] = (await ds.query(
        `INSERT INTO collections (tenant_id, name, created_at) VALUES ($1, $2, $3) RETURNING id::text AS id`,
        [t, name, at],
      )) as { id: string }[];
      return row.id;
    };
    const old = await collection('old', '2026-01-01T00:00:00Z');
    const mid = await collection('mid', '2026-01-02T00:00:00Z');
    const fresh = await collection('new', '2026-01-03T00:00:00Z');
    await collection('theirs', '2026-01-04T00:00:00Z', await tenant());
    await ds.query(`INSERT INTO documents (collection_id, text) VALUES ($1, 'a'), ($1, 'b')`, [mid]);
    const repo = new CollectionsRepository(ds);
    expect(await repo.newestOf(tenantId, 2)).toEqual([
      { id: fresh, name: 'new', documents: 0 },
      { id: mid, name: 'mid', documents: 2 },
    ]);
    expect((await repo.newestOf(tenantId, 10)).map((c) => c.id)).toEqual([fresh, mid, old]);
  });
});
