import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { newTenant, openTestDatabase } from './registry-db.fixture';
import { RunScopes } from './run-scope';

// A model call reads its run's pinned models and business id, within the tenant its task works
// for: a task of another tenant finds no run (real Postgres, a database of this spec's own).
let ds: DataSource;
let tenantA: string;
let tenantB: string;
let runId: string;

beforeAll(async () => {
  ds = await openTestDatabase(`switchyard_spec_run_scope_${process.pid}`);
  tenantA = await newTenant(ds);
  tenantB = await newTenant(ds);
  const threadId = randomUUID();
  runId = randomUUID();
  await ds.query(`INSERT INTO threads (id, tenant_id, agent_id) VALUES ($1, $2, 'default')`, [
    threadId,
    tenantA,
  ]);
  await ds.query(
    `INSERT INTO runs (id, tenant_id, thread_id, agent_id, status, input, agent_config, metadata)
     VALUES ($1, $2, $3, 'default', 'running', '{}', $4, $5)`,
    [
      runId,
      tenantA,
      threadId,
      JSON.stringify({ models: { planner: 'big' } }),
      JSON.stringify({ business_id: 'b1' }),
    ],
  );
});

afterAll(async () => {
  await ds?.destroy();
});

describe(RunScopes.name, () => {
  it("reads the run's tenant, business and pinned models within the task's tenant", async () => {
    await expect(new RunScopes(ds).forRun(runId, tenantA)).resolves.toEqual({
      tenant_id: tenantA,
      business_id: 'b1',
      models: { planner: 'big' },
    });
  });

  it("finds no run for a task of another tenant, even after the run's own tenant read it", async () => {
    const scopes = new RunScopes(ds);
    await scopes.forRun(runId, tenantA);
    await expect(scopes.forRun(runId, tenantB)).resolves.toBeUndefined();
  });

  it('reads the run by id alone for a call that names no tenant (a task from before tenant_id)', async () => {
    await expect(new RunScopes(ds).forRun(runId)).resolves.toMatchObject({ tenant_id: tenantA });
  });
});
