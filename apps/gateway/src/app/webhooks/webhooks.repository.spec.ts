// Webhook deliveries and signing secrets, against the real Postgres: a URL replaced until
// delivered, deliveries claimed once their run has ended, retries and giving up.
import { SecretBox } from '@switchyard/config';
import { specDatabase } from '../testing/spec-database';
import { WebhooksRepository } from './webhooks.repository';

jest.setTimeout(30_000);

const box = new SecretBox('ab'.repeat(32));

describe(WebhooksRepository.name, () => {
  const pg = specDatabase('webhooks-repository-spec');

  it("makes the tenant's secret once and rotates it", async () => {
    const repo = new WebhooksRepository(pg.ds, box);
    const tenantId = await pg.tenant();
    const first = await repo.secret(tenantId);
    expect(first).toMatch(/^whsec_[0-9a-f]{48}$/);
    expect(await repo.secret(tenantId)).toBe(first);
    expect(await repo.rotate(tenantId, true)).toBe(first);
    const second = await repo.rotate(tenantId);
    expect(second).not.toBe(first);
    expect(await repo.secret(tenantId)).toBe(second);
    await expect(repo.secret('00000000-0000-4000-8000-000000000000')).rejects.toThrow(/does not exist/);
  });

  it('claims the deliveries of ended runs, retries them and gives up', async () => {
    const repo = new WebhooksRepository(pg.ds, box);
    const tenantId = await pg.tenant();
    const threadId = await pg.thread(tenantId);
    const ended = await pg.run(tenantId, threadId, { status: 'succeeded' });
    const running = await pg.run(tenantId, threadId, { status: 'running' });
    await repo.schedule(ended, tenantId, 'http://first');
    await repo.schedule(ended, tenantId, 'http://second');
    await repo.schedule(running, tenantId, 'http://running');
    const mine = async () =>
      (await repo.claimDue(1000, 60_000)).filter((d) => d.run_id === ended || d.run_id === running);
    expect(await mine()).toEqual([{ run_id: ended, tenant_id: tenantId, url: 'http://second', attempts: 0 }]);
    expect(await mine()).toEqual([]); // leased

    await repo.failed(ended, 'x'.repeat(2000), 0);
    expect(await mine()).toEqual([{ run_id: ended, tenant_id: tenantId, url: 'http://second', attempts: 1 }]);
    const row = () =>
      pg.db
        .selectFrom('webhook_deliveries')
        .select(['attempts', 'last_error', 'delivered_at', 'gave_up_at', 'url'])
        .where('run_id', '=', ended)
        .executeTakeFirstOrThrow();
    expect((await row()).last_error).toHaveLength(1000);
    await repo.failed(ended, 'gone', null);
    expect(await row()).toMatchObject({ attempts: 2, last_error: 'gone', delivered_at: null });
    expect((await row()).gave_up_at).toBeInstanceOf(Date);
    await pg.db
      .updateTable('webhook_deliveries')
      .set({ next_at: new Date(0) })
      .where('run_id', '=', ended)
      .execute();
    expect(await mine()).toEqual([]);

    await repo.delivered(ended);
    expect(await row()).toMatchObject({ attempts: 3, last_error: null, delivered_at: expect.any(Date) });
    // A delivered webhook keeps its URL.
    await repo.schedule(ended, tenantId, 'http://third');
    expect((await row()).url).toBe('http://second');
  });
});
