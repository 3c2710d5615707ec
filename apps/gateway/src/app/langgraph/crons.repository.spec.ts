// The crons' statements against the real Postgres: upsert, the tenant filter, search and firing.
import { randomUUID } from 'node:crypto';
import { ApiException } from '../http/api.exception';
import { specDatabase } from '../testing/spec-database';
import { type CronRow, CronsRepository } from './crons.repository';
import type { CronSearch } from './langgraph.schemas';

jest.setTimeout(30_000);

describe(CronsRepository.name, () => {
  const pg = specDatabase('crons-repository-spec');
  let repo: CronsRepository;
  let tenantId: string;

  const cron = (over: Partial<CronRow> = {}) => ({
    id: randomUUID(),
    tenant_id: tenantId,
    assistant_id: 'a1',
    thread_id: null,
    schedule: '* * * * *',
    timezone: 'UTC',
    payload: { input: { n: 1 } },
    metadata: { k: 'v' },
    end_time: null,
    enabled: true,
    next_run_at: new Date('2099-01-01T00:00:00Z'),
    ...over,
  });
  const search = (q: Partial<CronSearch>): CronSearch => ({
    limit: 10,
    offset: 0,
    sort_by: 'created_at',
    sort_order: 'desc',
    ...q,
  });

  beforeAll(async () => {
    repo = new CronsRepository(pg.ds);
    tenantId = await pg.tenant();
  });

  it('stores a cron, then its new settings (tenant, assistant and thread kept), JSON as objects', async () => {
    const c = cron();
    await repo.save(c);
    const first = await repo.getOrThrow(tenantId, c.id);
    expect(first).toMatchObject({ ...c, last_run_id: null, last_error: null });
    expect(first.created_at).toBeInstanceOf(Date);
    const settings = {
      schedule: '0 * * * *',
      timezone: 'Europe/Paris',
      payload: { input: { n: 2 } },
      metadata: { k: 'w' },
      end_time: new Date('2099-06-01T00:00:00Z'),
      enabled: false,
      next_run_at: null,
    };
    await repo.save({ ...c, ...settings, assistant_id: 'other', thread_id: randomUUID() });
    const second = await repo.getOrThrow(tenantId, c.id);
    expect(second).toMatchObject({ ...settings, assistant_id: 'a1', thread_id: null });
    expect(second.created_at).toEqual(first.created_at);
    expect(second.updated_at.getTime()).toBeGreaterThanOrEqual(first.updated_at.getTime());
  });

  it("is not found for another tenant, an unknown id or a non-UUID, and deletes the tenant's own", async () => {
    const c = cron();
    await repo.save(c);
    const other = await pg.tenant();
    await expect(repo.getOrThrow(other, c.id)).rejects.toBeInstanceOf(ApiException);
    await expect(repo.delete(other, c.id)).rejects.toBeInstanceOf(ApiException);
    await expect(repo.getOrThrow(tenantId, randomUUID())).rejects.toBeInstanceOf(ApiException);
    await expect(repo.getOrThrow(tenantId, 'nope')).rejects.toBeInstanceOf(ApiException);
    await repo.delete(tenantId, c.id);
    await expect(repo.getOrThrow(tenantId, c.id)).rejects.toBeInstanceOf(ApiException);
  });

  it('searches and counts by assistant, thread and enabled, sorted with nulls last, paged', async () => {
    const t = await pg.tenant();
    const th = await pg.thread(t);
    const early = cron({ tenant_id: t, assistant_id: 's', next_run_at: new Date('2099-01-01T00:00:00Z') });
    const late = cron({ tenant_id: t, assistant_id: 's', next_run_at: new Date('2099-02-01T00:00:00Z') });
    const never = cron({ tenant_id: t, assistant_id: 's', next_run_at: null, enabled: false });
    const inThread = cron({ tenant_id: t, assistant_id: 'u', thread_id: th });
    for (const c of [early, late, never, inThread]) {
      await repo.save(c);
    }
    await repo.save(cron({ assistant_id: 's' })); // another tenant's
    const ids = async (q: Partial<CronSearch>) => (await repo.search(t, search(q))).map((c) => c.id);
    expect(await ids({ assistant_id: 's', sort_by: 'next_run_date', sort_order: 'asc' })).toEqual([
      early.id,
      late.id,
      never.id,
    ]);
    expect(await ids({ assistant_id: 's', sort_by: 'next_run_date', sort_order: 'desc' })).toEqual([
      late.id,
      early.id,
      never.id,
    ]);
    expect(
      await ids({ assistant_id: 's', sort_by: 'next_run_date', sort_order: 'asc', limit: 1, offset: 1 }),
    ).toEqual([late.id]);
    expect(await ids({ enabled: false })).toEqual([never.id]);
    expect((await ids({ enabled: true })).sort()).toEqual([early.id, late.id, inThread.id].sort());
    expect(await ids({ thread_id: th })).toEqual([inThread.id]);
    expect((await ids({})).length).toBe(4);
    expect(await repo.count(t, {})).toBe(4);
    expect(await repo.count(t, { assistant_id: 's' })).toBe(3);
    expect(await repo.count(t, { thread_id: th })).toBe(1);
    expect(await repo.count(t, { assistant_id: 's', thread_id: th })).toBe(0);
  });

  it('fires the due enabled crons and stores each next firing, its run kept when none is made', async () => {
    const t = await pg.tenant();
    const due = cron({ tenant_id: t, next_run_at: new Date('2000-01-01T00:00:00Z') });
    const off = cron({ tenant_id: t, next_run_at: new Date('2000-01-01T00:00:00Z'), enabled: false });
    const later = cron({ tenant_id: t });
    for (const c of [due, off, later]) {
      await repo.save(c);
    }
    const next = new Date('2099-03-01T00:00:00Z');
    const runId = randomUUID();
    const seen: string[] = [];
    // Other specs' due crons (the database is shared) keep what they had.
    const fire = (out: { runId: string | null; error: string | null }) =>
      repo.fireDue(1000, async (c) => {
        seen.push(c.id);
        return c.tenant_id === t
          ? { next, ...out }
          : { next: c.next_run_at, runId: null, error: c.last_error };
      });
    await fire({ runId, error: null });
    expect(seen).toContain(due.id);
    expect(seen).not.toContain(off.id);
    expect(seen).not.toContain(later.id);
    expect(await repo.getOrThrow(t, due.id)).toMatchObject({
      next_run_at: next,
      last_run_id: runId,
      last_error: null,
    });

    await pg.db
      .updateTable('crons')
      .set({ next_run_at: new Date('2000-01-01T00:00:00Z') })
      .where('id', '=', due.id)
      .execute();
    await fire({ runId: null, error: 'boom' });
    expect(await repo.getOrThrow(t, due.id)).toMatchObject({
      next_run_at: next,
      last_run_id: runId,
      last_error: 'boom',
    });
  });
});
