// The run an MCP tool call started, against the real Postgres.
import { specDatabase } from '../testing/spec-database';
import { AgentsMcpRepository } from './agents-mcp.repository';

jest.setTimeout(30_000);

describe(AgentsMcpRepository.name, () => {
  const pg = specDatabase('agents-mcp-repository-spec');

  it("finds the newest unfinished run of the key's request, in the tenant only", async () => {
    const repo = new AgentsMcpRepository(pg.ds);
    const tenantId = await pg.tenant();
    const threadId = await pg.thread(tenantId);
    const run = (status: string, call: Record<string, string>, at: string) =>
      pg.run(tenantId, threadId, { status, metadata: JSON.stringify(call), created_at: new Date(at) });
    const call = { mcp_key_id: 'key-1', mcp_request_id: '7' };
    await run('running', call, '2026-01-01T00:00:00Z');
    const newest = await run('waiting', call, '2026-01-01T00:00:01Z');
    await run('succeeded', call, '2026-01-01T00:00:02Z');
    await run('running', { ...call, mcp_key_id: 'key-2' }, '2026-01-01T00:00:03Z');
    await run('running', { ...call, mcp_request_id: '8' }, '2026-01-01T00:00:03Z');
    expect(await repo.activeRunOfRequest(tenantId, 'key-1', '7')).toBe(newest);
    expect(await repo.activeRunOfRequest(await pg.tenant(), 'key-1', '7')).toBeUndefined();
    expect(await repo.activeRunOfRequest(tenantId, 'key-1', '9')).toBeUndefined();
  });
});
