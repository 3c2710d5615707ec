// The LangGraph surface's statements against the real Postgres: assistants, threads and runs.
import { randomUUID } from 'node:crypto';
import type { AgentConfig } from '@switchyard/contracts';
import { ApiException } from '../http/api.exception';
import { specDatabase } from '../testing/spec-database';
import { type AssistantFields, LangGraphRepository } from './langgraph.repository';

jest.setTimeout(30_000);

describe(LangGraphRepository.name, () => {
  const pg = specDatabase('langgraph-repository-spec');
  let repo: LangGraphRepository;

  const config = (name: string): AgentConfig => ({ name, max_steps: 5 });
  const fields = (name: string, over: Partial<AssistantFields> = {}): AssistantFields => ({
    graph_id: 'default',
    graph_name: 'default',
    config: {},
    context: {},
    metadata: {},
    name,
    description: null,
    ...over,
  });
  /** A new assistant of the tenant, its id. */
  const assistant = async (tenantId: string, name: string, over: Partial<AssistantFields> = {}) => {
    const id = randomUUID();
    expect(await repo.createAssistant(tenantId, id, config(name), fields(name, over))).toBe(true);
    return id;
  };
  const search = { limit: 10, offset: 0, sortBy: 'name', sortOrder: 'asc' } as const;

  beforeAll(() => {
    repo = new LangGraphRepository(pg.ds);
  });

  it('creates assistants (a taken id: false), finds them by id or name, filtered, sorted and counted', async () => {
    const t = await pg.tenant();
    const base = await assistant(t, 'base', { metadata: { team: 'x' } });
    const made = await assistant(t, 'child', { graph_id: base, graph_name: 'base', metadata: { team: 'y' } });
    await assistant(t, 'twin');
    await assistant(t, 'twin');
    await assistant(await pg.tenant(), 'child');
    expect(await repo.createAssistant(t, made, config('again'), fields('again'))).toBe(false);

    const row = await repo.agentOrThrow(t, made);
    expect(row).toMatchObject({ id: made, name: 'child', graph_id: 'base', graph_ref: base, version: 1 });
    expect(row.metadata).toEqual({ team: 'y' });
    expect(row.assistant).toEqual(
      fields('child', { graph_id: base, graph_name: 'base', metadata: { team: 'y' } }),
    );
    expect((await repo.agentOrThrow(t, 'child')).id).toBe(made);
    await expect(repo.agentOrThrow(t, 'twin')).rejects.toBeInstanceOf(ApiException);
    await expect(repo.agentOrThrow(t, 'nobody')).rejects.toBeInstanceOf(ApiException);
    await expect(repo.agentOrThrow(t, randomUUID())).rejects.toBeInstanceOf(ApiException);

    const names = async (q: Partial<Parameters<LangGraphRepository['searchAgents']>[1]>) =>
      (await repo.searchAgents(t, { ...search, ...q })).map((a) => a.name);
    expect(await names({})).toEqual(['base', 'child', 'twin', 'twin']);
    expect(await names({ sortOrder: 'desc', limit: 2, offset: 2 })).toEqual(['child', 'base']);
    expect(await names({ graphId: 'base' })).toEqual(['child']);
    expect(await names({ graphId: 'default' })).toEqual(['base', 'twin', 'twin']);
    expect(await names({ graphId: base })).toEqual(['child']);
    expect(await names({ name: 'twin' })).toEqual(['twin', 'twin']);
    expect(await names({ metadata: { team: 'x' } })).toEqual(['base']);
    expect(await names({ sortBy: 'graph_id', sortOrder: 'asc', name: 'child' })).toEqual(['child']);
    expect(await repo.countAgents(t, {})).toBe(4);
    expect(await repo.countAgents(t, { graphId: 'base', metadata: { team: 'y' } })).toBe(1);
    expect(await repo.countAgents(t, { graphId: 'base', metadata: { team: 'x' } })).toBe(0);
    expect(await repo.countAgents(t, { metadata: {} })).toBe(4);

    expect(await repo.agentById(t, made)).toEqual({ id: made, deleted: false });
    expect(await repo.agentById(await pg.tenant(), made)).toBeNull();
    expect(await repo.agentById(t, 'child')).toBeNull();
  });

  it('publishes versions the row follows, sets an older one latest, reads versions and configs', async () => {
    const t = await pg.tenant();
    const id = await assistant(t, 'v1', { metadata: { n: 1 } });
    expect(await repo.latestConfig(id)).toEqual(config('v1'));
    await repo.publishAssistant(id, config('v2'), fields('v2', { metadata: { n: 2 }, description: 'two' }));
    expect(await repo.agentOrThrow(t, id)).toMatchObject({
      name: 'v2',
      version: 2,
      metadata: { n: 2 },
      description: 'two',
    });
    expect(await repo.latestConfig(id)).toEqual(config('v2'));
    expect((await repo.agentVersions(id, 10, 0)).map((v) => v.version)).toEqual([2, 1]);
    expect((await repo.agentVersions(id, 1, 1)).map((v) => v.version)).toEqual([1]);
    expect((await repo.agentVersions(id, 10, 0, { n: 1 })).map((v) => v.version)).toEqual([1]);
    const v1 = await repo.agentVersion(id, 1);
    expect(v1).toMatchObject({
      version: 1,
      config: config('v1'),
      assistant: fields('v1', { metadata: { n: 1 } }),
    });
    expect(await repo.agentVersion(id, 9)).toBeUndefined();
    expect(await repo.latestAssistantFields(id)).toEqual(
      fields('v2', { metadata: { n: 2 }, description: 'two' }),
    );

    await repo.setLatest(id, v1!);
    expect(await repo.agentOrThrow(t, id)).toMatchObject({
      name: 'v1',
      version: 1,
      metadata: { n: 1 },
      description: null,
    });
    expect(await repo.latestConfig(id)).toEqual(config('v1'));
    // A version without assistant fields: the row keeps its graph, metadata and description; the draft stays.
    const draft = await pg.db
      .selectFrom('agents')
      .select('draft')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await repo.setLatest(id, { ...v1!, config: config('bare'), assistant: null });
    const bare = await pg.db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(bare).toMatchObject({ name: 'bare', latest_version: 1, metadata: { n: 1 }, draft: draft.draft });
  });

  it("creates threads (another tenant's id: a conflict), reads, searches, counts and merges metadata", async () => {
    const t = await pg.tenant();
    const agentId = await assistant(t, 'a');
    const idle = randomUUID();
    const busy = randomUUID();
    const named = randomUUID();
    expect(await repo.createThread(t, idle, { k: 1 })).toBe(true);
    expect(await repo.createThread(t, idle, {})).toBe(false);
    await expect(repo.createThread(await pg.tenant(), idle, {})).rejects.toBeInstanceOf(ApiException);
    expect(await repo.createThread(t, busy, { k: 2 }, agentId, true)).toBe(true);
    expect(await repo.createThread(t, named, { assistant_id: agentId })).toBe(true);
    const run = await pg.run(t, busy, { agent_id: agentId, status: 'failed' });
    await pg.run(t, busy, { status: 'queued', waiting: JSON.stringify({ task_id: 'x' }) });

    expect(await repo.thread(t, idle)).toMatchObject({
      id: idle,
      agent_id: 'default',
      metadata: { k: 1 },
      last_status: null,
    });
    expect(await repo.thread(t, busy)).toMatchObject({
      agent_id: agentId,
      last_status: 'queued',
      at_breakpoint: false,
    });
    expect(await repo.thread(await pg.tenant(), idle)).toBeUndefined();
    expect(await repo.thread(t, 'nope')).toBeUndefined();
    await expect(repo.threadOrThrow(t, randomUUID())).rejects.toBeInstanceOf(ApiException);

    const ids = async (f: Parameters<LangGraphRepository['searchThreads']>[1], by = 'created_at' as const) =>
      (await repo.searchThreads(t, f, { by, order: 'asc' }, 10, 0)).map((r) => r.id);
    expect(await ids({})).toEqual([idle, busy, named]);
    expect(await ids({ status: 'busy' })).toEqual([busy]);
    expect(await ids({ status: 'idle' })).toEqual([idle, named]);
    expect(await ids({ metadata: { k: 2 } })).toEqual([busy]);
    expect(await ids({ ids: [named, idle, randomUUID()] })).toEqual([idle, named]);
    expect(await ids({ ids: [] })).toEqual([]);
    expect((await repo.searchThreads(t, {}, { by: 'status', order: 'asc' }, 1, 0)).map((r) => r.id)).toEqual([
      busy,
    ]);
    expect(await repo.countThreads(t, {})).toBe(3);
    expect(await repo.countThreads(t, { status: 'idle' })).toBe(2);

    expect((await repo.threadIdsOfAgent(t, agentId)).sort()).toEqual([busy, named].sort());
    expect(await repo.mergeThreadMetadata(t, idle, { j: 2 })).toBe(true);
    expect((await repo.thread(t, idle))?.metadata).toEqual({ k: 1, j: 2 });
    expect(await repo.mergeThreadMetadata(await pg.tenant(), idle, { j: 3 })).toBe(false);
    expect(await repo.threadVersion(idle)).toBe(0);
    expect(await repo.threadVersion(randomUUID())).toBe(0);
    expect(await repo.hasRuns(busy)).toBe(true);
    expect(await repo.hasRuns(idle)).toBe(false);
    expect((await repo.runOrThrow(t, busy, run)).status).toBe('failed');
  });

  it('reads runs by thread and tenant, the waiting one, the active ones, and records stream modes', async () => {
    const t = await pg.tenant();
    const thread = await pg.thread(t);
    const other = await pg.thread(t);
    const done = await pg.run(t, thread, {
      status: 'succeeded',
      created_at: new Date('2026-01-01T00:00:01Z'),
    });
    const waiting = await pg.run(t, thread, {
      status: 'waiting',
      waiting: JSON.stringify({ task_id: 'ask-1' }),
      created_at: new Date('2026-01-01T00:00:02Z'),
    });
    const queued = await pg.run(t, other, { status: 'queued', created_at: new Date('2026-01-01T00:00:03Z') });

    expect((await repo.runsOfThread(thread)).map((r) => r.id)).toEqual([waiting, done]);
    expect((await repo.waitingRun(thread))?.id).toBe(waiting);
    expect(await repo.waitingRun(other)).toBeUndefined();
    expect(await repo.runStatus(waiting)).toEqual({ status: 'waiting', waiting_task: 'ask-1' });
    expect(await repo.runStatus(randomUUID())).toBeUndefined();
    expect(await repo.runOrThrow(t, undefined, queued)).toMatchObject({
      id: queued,
      thread_id: other,
      waiting: null,
    });
    await expect(repo.runOrThrow(t, thread, queued)).rejects.toBeInstanceOf(ApiException);
    await expect(repo.runOrThrow(await pg.tenant(), undefined, queued)).rejects.toBeInstanceOf(ApiException);
    await expect(repo.runOrThrow(t, 'nope', queued)).rejects.toBeInstanceOf(ApiException);

    expect(await repo.activeRunIds(t, {})).toEqual([waiting, queued]);
    expect(await repo.activeRunIds(t, { status: 'pending' })).toEqual([queued]);
    expect(await repo.activeRunIds(t, { status: 'running', threadId: null })).toEqual([waiting]);
    expect(await repo.activeRunIds(t, { threadId: other })).toEqual([queued]);
    expect(await repo.activeRunIds(t, { runIds: [done, queued] })).toEqual([queued]);
    expect(await repo.activeRunIds(t, { runIds: [] })).toEqual([]);
    expect(await repo.activeRunIds(await pg.tenant(), {})).toEqual([]);

    await repo.setStreamModes(done, ['values', 'updates']);
    expect((await repo.run(done))?.stream_modes).toEqual(['values', 'updates']);
    expect(await repo.run(randomUUID())).toBeUndefined();
  });

  it('reads when the tenant was created (the epoch for none)', async () => {
    const t = await pg.tenant();
    expect((await repo.tenantCreatedAt(t)).getTime()).toBeGreaterThan(0);
    expect(await repo.tenantCreatedAt(randomUUID())).toEqual(new Date(0));
  });
});
