// What output reads of a run and its thread, against the real Postgres: in the task's tenant only,
// a user id only when it is a string, a malformed output_tools refused.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource, ensureDatabase, kyselyOf, runMigrationsLocked } from '@switchyard/persistence';
import { testDatabaseUrl } from '@switchyard/testing';
import { RunOutputContextRepository } from './run-output-context.repository';

jest.setTimeout(30_000);

let ds: DataSource;
const tenants: string[] = [];

beforeAll(async () => {
  await ensureDatabase(testDatabaseUrl());
  ds = await createDataSource(testDatabaseUrl(), { poolSize: 2, name: 'run-output-context-spec' });
  await runMigrationsLocked(ds);
});

afterAll(async () => {
  if (tenants.length) {
    await kyselyOf(ds).deleteFrom('tenants').where('id', 'in', tenants).execute();
  }
  await ds?.destroy();
});

it("reads the run's output tools, its thread's title and its user, in its tenant only", async () => {
  const db = kyselyOf(ds);
  const { id: tenantId } = await db
    .insertInto('tenants')
    .values({ name: `run-output-context-${randomUUID()}` })
    .returning('id')
    .executeTakeFirstOrThrow();
  tenants.push(tenantId);
  const threadId = randomUUID();
  await db
    .insertInto('threads')
    .values({ id: threadId, tenant_id: tenantId, agent_id: 'default', title: 'T' })
    .execute();
  const run = async (agentConfig: unknown, metadata: unknown) => {
    const id = randomUUID();
    await db
      .insertInto('runs')
      .values({
        id,
        tenant_id: tenantId,
        thread_id: threadId,
        agent_id: 'default',
        status: 'running',
        input: '{}',
        agent_config: JSON.stringify(agentConfig),
        metadata: JSON.stringify(metadata),
      })
      .execute();
    return id;
  };
  const repo = new RunOutputContextRepository(ds);
  expect(await repo.forRun(await run({ output_tools: ['a'] }, { user_id: 'u1' }), tenantId)).toEqual({
    allowedTools: ['a'],
    threadTitle: 'T',
    userId: 'u1',
  });
  const plain = await run({}, { user_id: 7 });
  expect(await repo.forRun(plain, tenantId)).toEqual({
    allowedTools: undefined,
    threadTitle: 'T',
    userId: null,
  });
  await expect(repo.forRun(plain, randomUUID())).rejects.toThrow(/not found in its task's tenant/);
  await expect(repo.forRun(await run({ output_tools: 'a' }, {}), tenantId)).rejects.toThrow(
    /output_tools is not a list/,
  );
});
