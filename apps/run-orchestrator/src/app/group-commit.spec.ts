// StepCommitGroup against the real Postgres (the `switchyard_test` database on DATABASE_URL's server).
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { type LockedWork, type StepSql, createDataSource, ensureDatabase } from '@switchyard/persistence';
import { StepCommitGroup } from './group-commit';
import { groupCommitFallbacks } from './orchestrator.metrics';
import { testDatabaseUrl } from '@switchyard/testing';

jest.setTimeout(30_000);

const TABLE = `group_commit_spec_${process.pid}`;

describe(StepCommitGroup.name, () => {
  let ds: DataSource;

  beforeAll(async () => {
    const url = testDatabaseUrl();
    await ensureDatabase(url);
    ds = await createDataSource(url, { poolSize: 8, name: 'group-commit-spec' });
    await ds.query(`CREATE TABLE ${TABLE} (id text PRIMARY KEY, n int NOT NULL)`);
  });

  afterAll(async () => {
    await ds?.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await ds?.destroy();
  });

  async function rows(n: number): Promise<string[]> {
    const ids = Array.from({ length: n }, (_, i) => `${String.fromCharCode(122 - i)}-${randomUUID()}`);
    await ds.query(`INSERT INTO ${TABLE} (id, n) SELECT unnest($1::text[]), 0`, [ids]);
    return ids;
  }

  const valueOf = async (id: string): Promise<number> =>
    ((await ds.query(`SELECT n FROM ${TABLE} WHERE id = $1`, [id])) as { n: number }[])[0].n;

  /** A step that locks `id`, adds one to it and answers its transaction's id; `hold` delays its end. */
  function bump(
    id: string,
    order: string[] = [],
    hold?: Promise<void>,
    fail = false,
  ): LockedWork<{ xid: string; n: number }, { n: number }> {
    return {
      lockSql: (lit) => `SELECT n FROM ${TABLE} WHERE id = ${lit(id)} FOR UPDATE`,
      async work(m: StepSql, locked) {
        order.push(id);
        await m.query(`UPDATE ${TABLE} SET n = n + 1 WHERE id = $1`, [id]);
        await hold;
        if (fail) {
          throw new Error(`step of ${id} failed`);
        }
        const [{ xid }] = await m.query<{ xid: string }[]>('SELECT txid_current()::text AS xid');
        return { xid, n: locked[0].n + 1 };
      },
    };
  }

  /** A group of one worker kept busy by a held step: the steps sent meanwhile wait and go together. */
  async function whileBusy<T>(group: StepCommitGroup, send: () => Promise<T>[]): Promise<T[]> {
    const [blocker] = await rows(1);
    let release!: () => void;
    const held = group.run(blocker, bump(blocker, [], new Promise<void>((r) => (release = r))));
    const sent = send().map((p) =>
      p.then(
        (v) => ({ ok: v }),
        (err: unknown) => ({ err }),
      ),
    );
    await new Promise((r) => setTimeout(r, 50));
    release();
    await held;
    const settled = await Promise.all(sent);
    return settled.map((s) => ('ok' in s ? s.ok : (s as unknown as T)));
  }

  it('starts a step at once when a worker is free, in its own transaction', async () => {
    const group = new StepCommitGroup(ds, 32, 1);
    const [a, b] = await rows(2);

    const first = await group.run(a, bump(a));
    const second = await group.run(b, bump(b));

    expect(first.n).toBe(1);
    expect(second.n).toBe(1);
    expect(first.xid).not.toBe(second.xid);
  });

  it('commits the steps that arrive while its workers are busy in ONE transaction, runs locked in key order', async () => {
    const group = new StepCommitGroup(ds, 32, 1);
    const ids = await rows(5);
    const order: string[] = [];

    const outs = await whileBusy(group, () => ids.map((id) => group.run(id, bump(id, order))));

    expect(new Set(outs.map((o) => o.xid)).size).toBe(1);
    expect(order).toEqual([...ids].sort());
    for (const id of ids) {
      expect(await valueOf(id)).toBe(1);
    }
  });

  it('never puts two steps of one run in a group: the second follows in the next transaction and sees the first', async () => {
    const group = new StepCommitGroup(ds, 32, 1);
    const [a, b] = await rows(2);

    const [a1, bOut, a2] = await whileBusy(group, () => [
      group.run(a, bump(a)),
      group.run(b, bump(b)),
      group.run(a, bump(a)),
    ]);

    expect(a1.xid).toBe(bOut.xid);
    expect(a2.xid).not.toBe(a1.xid);
    expect(a2.n).toBe(2);
    expect(await valueOf(a)).toBe(2);
  });

  it('takes at most maxSteps steps in a group', async () => {
    const group = new StepCommitGroup(ds, 2, 1);
    const ids = await rows(5);

    const outs = await whileBusy(group, () => ids.map((id) => group.run(id, bump(id))));

    const sizes = [...new Set(outs.map((o) => o.xid))].map((x) => outs.filter((o) => o.xid === x).length);
    expect(sizes.sort()).toEqual([1, 2, 2]);
  });

  it('fails only the step that failed: the group rolls back and each of its steps runs again alone', async () => {
    const group = new StepCommitGroup(ds, 32, 1);
    const [a, bad, c] = await rows(3);
    const fallbacks = (await groupCommitFallbacks.get()).values[0]?.value ?? 0;

    const outs = await whileBusy(group, () => [
      group.run(a, bump(a)),
      group.run(bad, bump(bad, [], undefined, true)),
      group.run(c, bump(c)),
    ]);

    expect((outs[1] as unknown as { err: Error }).err.message).toBe(`step of ${bad} failed`);
    // The others committed once (the group's writes were rolled back, not doubled), each alone.
    expect([await valueOf(a), await valueOf(bad), await valueOf(c)]).toEqual([1, 0, 1]);
    expect(outs[0].n).toBe(1);
    expect(outs[2].n).toBe(1);
    expect(outs[0].xid).not.toBe(outs[2].xid);
    expect((await groupCommitFallbacks.get()).values[0].value).toBe(fallbacks + 1);
  });

  it('commits each step alone when grouping is off (maxSteps 1)', async () => {
    const group = new StepCommitGroup(ds, 1, 1);
    const ids = await rows(3);

    const outs = await Promise.all(ids.map((id) => group.run(id, bump(id))));

    expect(new Set(outs.map((o) => o.xid)).size).toBe(3);
  });
});
