// A tenant's data sources and tool outputs, and the MCP servers' store, against the real Postgres:
// a second name is the same conflict as before Kysely, another tenant's row is not found.
import { randomUUID } from 'node:crypto';
import { ApiErrorCode } from '../http/api.exception';
import { McpServersRepository } from '../mcp/mcp-servers.repository';
import { specDatabase } from '../testing/spec-database';
import { DataSourcesRepository } from './data-sources.repository';

jest.setTimeout(30_000);

describe(DataSourcesRepository.name, () => {
  const pg = specDatabase('data-sources-repository-spec');

  it("creates, lists and removes a tenant's sources; a second name is a conflict", async () => {
    const repo = new DataSourcesRepository(pg.ds);
    const tenantId = await pg.tenant();
    const other = await pg.tenant();
    const source = { kind: 'postgres' as const, dsnSealed: 'sealed', options: { max_rows: 5 } };
    const b = await repo.create(tenantId, { name: 'b', ...source });
    const a = await repo.create(tenantId, { name: 'a', ...source });
    expect(b).toMatchObject({ name: 'b', kind: 'postgres', dsn_sealed: 'sealed', options: { max_rows: 5 } });
    await expect(repo.create(tenantId, { name: 'a', ...source })).rejects.toMatchObject({
      code: ApiErrorCode.Conflict,
      message: 'a data source named a exists already',
    });
    await repo.create(other, { name: 'a', ...source });
    expect((await repo.list(tenantId)).map((s) => s.id)).toEqual([a.id, b.id]);
    await expect(repo.remove(other, a.id)).rejects.toMatchObject({ code: ApiErrorCode.NotFound });
    expect(await repo.remove(tenantId, a.id)).toMatchObject({ id: a.id, name: 'a' });
    await expect(repo.remove(tenantId, a.id)).rejects.toMatchObject({ code: ApiErrorCode.NotFound });
  });

  it("reads a tool output of the tenant's run only", async () => {
    const repo = new DataSourcesRepository(pg.ds);
    const tenantId = await pg.tenant();
    const runId = await pg.run(tenantId, await pg.thread(tenantId));
    const { id } = await pg.db
      .insertInto('tool_outputs')
      .values({ run_id: runId, task_id: randomUUID(), tool: 'sql_query', bytes: 3, content: '"abc"' })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(await repo.toolOutput(tenantId, runId, id)).toMatchObject({
      id,
      run_id: runId,
      tool: 'sql_query',
      bytes: 3,
      content: 'abc',
    });
    await expect(repo.toolOutput(await pg.tenant(), runId, id)).rejects.toMatchObject({
      code: ApiErrorCode.NotFound,
    });
    await expect(repo.toolOutput(tenantId, randomUUID(), id)).rejects.toMatchObject({
      code: ApiErrorCode.NotFound,
    });
  });
});

describe(McpServersRepository.name, () => {
  const pg = specDatabase('mcp-servers-repository-spec');

  it('stores a server with its JSON columns; names are global; reads stay in the tenant', async () => {
    const repo = new McpServersRepository(pg.ds);
    const tenantId = await pg.tenant();
    const other = await pg.tenant();
    const name = `spec${Date.now()}`;
    const server = {
      name,
      transport: 'http' as const,
      command: null,
      args: ['--x'],
      envSealed: null,
      url: 'http://127.0.0.1:1/mcp',
      headersSealed: 'sealed',
      timeoutMs: 1000,
      maxOutputBytes: 2000,
      enabled: false,
      toolTypes: { answer: ['output' as const] },
    };
    const made = await repo.create(tenantId, server);
    expect(made).toMatchObject({
      name,
      transport: 'http',
      args: ['--x'],
      headers_sealed: 'sealed',
      timeout_ms: 1000,
      max_output_bytes: 2000,
      enabled: false,
      tool_types: { answer: ['output'] },
    });
    await expect(repo.create(other, server)).rejects.toMatchObject({
      code: ApiErrorCode.Conflict,
      message: `an MCP server named ${name} exists already`,
    });
    expect(await repo.list(tenantId)).toEqual([made]);
    expect(await repo.list(other)).toEqual([]);
    expect(await repo.getOrThrow(tenantId, made.id)).toEqual(made);
    await expect(repo.getOrThrow(other, made.id)).rejects.toMatchObject({ code: ApiErrorCode.NotFound });
    await expect(repo.remove(other, made.id)).rejects.toMatchObject({ code: ApiErrorCode.NotFound });
    expect(await repo.remove(tenantId, made.id)).toEqual(made);
    await expect(repo.getOrThrow(tenantId, made.id)).rejects.toMatchObject({ code: ApiErrorCode.NotFound });
  });
});
