// withLockedRead against the real Postgres (the `switchyard_test` database on DATABASE_URL's server).
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource, ensureDatabase } from './data-source';
import {
  type GatheredWrite,
  type StepSql,
  deferWrite,
  escapeLiteral,
  gatherWrite,
  withLockedRead,
  withLockedReads,
} from './locked-read';
import pg from 'pg';
import { statementName } from './prepared-query';
import { testDatabaseUrl } from '@switchyard/testing';

jest.setTimeout(30_000);

const TABLE = `locked_read_spec_${process.pid}`;
const KINDS = `locked_read_kinds_${process.pid}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(withLockedRead.name, () => {
  let ds: DataSource;

  beforeAll(async () => {
    const url = testDatabaseUrl();
    await ensureDatabase(url);
    ds = await createDataSource(url, { poolSize: 3, name: 'locked-read-spec' });
    await ds.query(`CREATE TABLE ${TABLE} (id uuid PRIMARY KEY, n int NOT NULL, note text)`);
    await ds.query(
      `CREATE TABLE ${KINDS} (id uuid PRIMARY KEY, n int, note text, doc json, tags text[], at timestamptz, flag boolean)`,
    );
  });

  afterAll(async () => {
    await ds?.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await ds?.query(`DROP TABLE IF EXISTS ${KINDS}`);
    await ds?.destroy();
  });

  async function row(): Promise<string> {
    const id = randomUUID();
    await ds.query(`INSERT INTO ${TABLE} (id, n) VALUES ($1, 0)`, [id]);
    return id;
  }

  const lockRow = (id: string) => (lit: (v: string) => string) =>
    `SELECT id, n FROM ${TABLE} WHERE id = ${lit(id)} FOR UPDATE`;

  it('hands the locked read to the work and commits what the work wrote', async () => {
    const id = await row();

    const seen = await withLockedRead(ds, lockRow(id), async (m, rows: { id: string; n: number }[]) => {
      await m.query(`UPDATE ${TABLE} SET n = $2 WHERE id = $1`, [id, rows[0].n + 1]);
      return rows;
    });

    expect(seen).toEqual([{ id, n: 0 }]);
    expect(await ds.query(`SELECT n FROM ${TABLE} WHERE id = $1`, [id])).toEqual([{ n: 1 }]);
  });

  it('rolls back what the work wrote when it throws, and returns a clean connection to the pool', async () => {
    const id = await row();

    await expect(
      withLockedRead(ds, lockRow(id), async (m) => {
        await m.query(`UPDATE ${TABLE} SET n = 5 WHERE id = $1`, [id]);
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');

    expect(await ds.query(`SELECT n FROM ${TABLE} WHERE id = $1`, [id])).toEqual([{ n: 0 }]);
    // Every pooled connection is out of any transaction (a leaked BEGIN would fail this).
    const states = await Promise.all(
      [1, 2, 3].map(() => ds.query(`SELECT now() = statement_timestamp() AS fresh`)),
    );
    expect(states.flat()).toEqual([{ fresh: true }, { fresh: true }, { fresh: true }]);
  });

  it('fails the step, not the process, when Postgres ends the connection between two statements', async () => {
    const id = await row();

    const step = withLockedRead(ds, lockRow(id), async (m) => {
      const [{ pid }] = (await m.query('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
      await ds.query('SELECT pg_terminate_backend($1)', [pid]);
      await sleep(200); // the termination reaches the idle client: its 'error' event
      await m.query(`UPDATE ${TABLE} SET n = 9 WHERE id = $1`, [id]);
    });

    // (createDataSource guards lent-out clients; the pool drops the unqueryable one on release.)
    await expect(step).rejects.toThrow();
    expect(await ds.query(`SELECT n FROM ${TABLE} WHERE id = $1`, [id])).toEqual([{ n: 0 }]);
    // The pool dropped the dead connection: three at once still get three working ones.
    const alive = await Promise.all([1, 2, 3].map(() => ds.query('SELECT 1 AS ok')));
    expect(alive.flat()).toEqual([{ ok: 1 }, { ok: 1 }, { ok: 1 }]);
  });

  it('quotes the values it inlines: a quote in a value cannot leave its literal', async () => {
    const id = await row();
    const hostile = `x'; UPDATE ${TABLE} SET note = 'owned' WHERE id = '${id}'; --`;

    const rows = await withLockedRead(
      ds,
      (lit) => `SELECT ${lit(hostile)} AS v`,
      async (_m, r: { v: string }[]) => r,
    );

    expect(rows).toEqual([{ v: hostile }]);
    expect(await ds.query(`SELECT note FROM ${TABLE} WHERE id = $1`, [id])).toEqual([{ note: null }]);
  });

  describe(escapeLiteral.name, () => {
    const samples = [
      '',
      'plain',
      "it's",
      "''",
      'back\\slash',
      "both ' and \\ and '\\'",
      '\\',
      '{"a":"x\\"y","b":"\\u0000 é 日本 🙂"}',
      "x'; DROP TABLE t; --",
    ];

    it("writes exactly pg's literal for every kind of value", () => {
      const alphabet = ['a', 'b', "'", '\\', '\n', ' ', 'é', '🙂', '"', 'x'];
      const random = Array.from({ length: 200 }, (_, i) =>
        Array.from({ length: i % 40 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join(''),
      );
      for (const value of [...samples, ...random]) {
        expect(escapeLiteral(value)).toBe(pg.escapeLiteral(value));
      }
    });

    it('reads back from Postgres as the very value it quoted', async () => {
      for (const value of samples) {
        const [{ v }] = (await ds.query(`SELECT ${escapeLiteral(value)}::text AS v`)) as { v: string }[];
        expect(v).toBe(value);
      }
    });
  });

  it('makes a second locked read wait for the first to commit, then read what it wrote', async () => {
    const id = await row();
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((r) => (releaseFirst = r));
    const order: string[] = [];

    const first = withLockedRead(ds, lockRow(id), async (m) => {
      order.push('first locked');
      await firstHolds;
      await m.query(`UPDATE ${TABLE} SET n = 7 WHERE id = $1`, [id]);
      order.push('first commits');
    });
    await sleep(200);
    const second = withLockedRead(ds, lockRow(id), async (_m, rows: { n: number }[]) => {
      order.push('second locked');
      return rows[0].n;
    });
    await sleep(300);
    releaseFirst();

    await first;
    expect(await second).toBe(7);
    expect(order).toEqual(['first locked', 'first commits', 'second locked']);
  });

  it('reads after the lock, in its round trip, what committed while the lock waited', async () => {
    const id = await row();
    const note = `queued-${id}`;
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((r) => (releaseFirst = r));
    // The first transaction holds the row and adds a second row before it commits (as a run is
    // queued on a thread while a start holds the thread).
    const first = withLockedRead(ds, lockRow(id), async (m) => {
      await firstHolds;
      await m.query(`INSERT INTO ${TABLE} (id, n, note) VALUES ($1, 1, $2)`, [randomUUID(), note]);
    });
    await sleep(200);
    const readAfter = (lit: (v: string) => string) =>
      `SELECT n, note FROM ${TABLE} WHERE note = ${lit(note)}`;
    // The same read as a subquery of the locking statement: its snapshot is older than the wait.
    const inOneStatement = withLockedRead(
      ds,
      (lit) =>
        `SELECT id, (SELECT count(*)::int FROM ${TABLE} WHERE note = ${lit(note)}) AS queued
           FROM ${TABLE} WHERE id = ${lit(id)} FOR UPDATE`,
      async (_m, rows: { queued: number }[]) => rows[0].queued,
    );
    const second = withLockedRead(
      ds,
      lockRow(id),
      async (_m, rows: { n: number }[], after) => ({ locked: rows, after }),
      undefined,
      readAfter,
    );
    await sleep(300);
    releaseFirst();
    await first;

    expect(await second).toEqual({ locked: [{ id, n: 0 }], after: [{ n: 1, note }] });
    expect(await inOneStatement).toBe(0);
  });

  it("hands each step of a group its own second read's rows, in the round trip of the locks", async () => {
    const ids = [await row(), await row(), await row()];
    // Every statement any pooled connection sends (pg's Client.query: nothing else runs meanwhile).
    const sent = jest.spyOn(pg.Client.prototype, 'query');
    try {
      const outs = await withLockedReads(
        ds,
        ids.map((id, i) => ({
          lockSql: lockRow(id),
          // The middle step reads nothing more.
          ...(i === 1
            ? {}
            : { readAfter: (lit: (v: string) => string) => `SELECT ${lit(`after-${i}`)} AS v` }),
          work: async (_m: StepSql, rows: { id: string }[], after: unknown[]) => [rows[0].id, after],
        })),
      );
      expect(outs).toEqual([
        [ids[0], [{ v: 'after-0' }]],
        [ids[1], []],
        [ids[2], [{ v: 'after-2' }]],
      ]);
      // BEGIN with the three locks and the two reads after them, then COMMIT: two round trips.
      expect(sent).toHaveBeenCalledTimes(2);
    } finally {
      sent.mockRestore();
    }
  });

  it("runs the work's statements as named prepared statements, each text once per connection", async () => {
    const id = await row();
    const update = `UPDATE ${TABLE} SET n = n + $2 WHERE id = $1`;
    for (let i = 0; i < 3; i++) {
      await withLockedRead(ds, lockRow(id), (m) => m.query(update, [id, 1]));
    }
    const prepared = await withLockedRead(ds, lockRow(id), (m) =>
      m.query<{ name: string; statement: string }[]>(
        'SELECT name, statement FROM pg_prepared_statements WHERE statement = $1',
        [update],
      ),
    );
    expect(prepared).toEqual([{ name: statementName(update), statement: update }]);
    expect(await ds.query(`SELECT n FROM ${TABLE} WHERE id = $1`, [id])).toEqual([{ n: 3 }]);
  });

  it('prepares a PreparedLock once per connection and EXECUTEs it with BEGIN, every time after', async () => {
    const id = await row();
    const lock = {
      name: `locked_read_spec_${process.pid}`,
      sql: `SELECT id, n FROM ${TABLE} WHERE id = $1::uuid FOR UPDATE`,
    };
    const execute = (lit: (v: string) => string) => `EXECUTE ${lock.name}(${lit(id)})`;
    const bump = `UPDATE ${TABLE} SET n = n + 1 WHERE id = $1`;
    // More reads than the pool has connections: each connection prepares it once, then reuses it.
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) {
      seen.push(
        await withLockedRead(
          ds,
          execute,
          async (m, rows: { n: number }[]) => {
            await m.query(bump, [id]);
            return rows[0].n;
          },
          lock,
        ),
      );
    }
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const held = await withLockedRead(
      ds,
      execute,
      (m) =>
        m.query<{ name: string }[]>('SELECT name FROM pg_prepared_statements WHERE name = $1', [lock.name]),
      lock,
    );
    expect(held).toEqual([{ name: lock.name }]);
  });

  it('drops a connection whose transaction prepared a lock and failed, so none is left half known', async () => {
    const id = await row();
    const name = `locked_read_fail_${process.pid}`;
    const execute = (lit: (v: string) => string) => `EXECUTE ${name}(${lit(id)})`;
    const broken = { name, sql: `SELECT id, no_such_column FROM ${TABLE} WHERE id = $1::uuid FOR UPDATE` };
    await expect(withLockedRead(ds, execute, async () => 0, broken)).rejects.toThrow('no_such_column');
    // Had the connection gone back to the pool, it would count the statement as prepared while
    // the server refused it: EXECUTE there would meet "prepared statement … does not exist".
    const lock = { name, sql: `SELECT id, n FROM ${TABLE} WHERE id = $1::uuid FOR UPDATE` };
    for (let i = 0; i < 6; i++) {
      await expect(
        withLockedRead(ds, execute, async (_m, rows: { n: number }[]) => rows[0].n, lock),
      ).resolves.toBe(0);
    }
  });
  it('keeps a connection whose work failed after its PREPAREs went through: they stay usable', async () => {
    const id = await row();
    const lock = {
      name: `locked_read_keep_${process.pid}`,
      sql: `SELECT id, n FROM ${TABLE} WHERE id = $1::uuid FOR UPDATE`,
    };
    const execute = (lit: (v: string) => string) => `EXECUTE ${lock.name}(${lit(id)})`;
    const bump = `UPDATE ${TABLE} SET n = n + 1 WHERE id = $1 AND $2::int > 0`;
    const failedOn = new Set<number>();
    // Each connection's first transaction prepares the lock, then fails in its work — one with a
    // held write never sent (so never prepared), one after the held write went out.
    for (let i = 0; i < 6; i++) {
      await expect(
        withLockedRead(
          ds,
          execute,
          async (m) => {
            await deferWrite(m, bump, [id, 1]);
            if (i % 2) {
              failedOn.add((await m.query<{ pid: number }[]>('SELECT pg_backend_pid() AS pid'))[0].pid);
            }
            throw new Error('work failed');
          },
          lock,
        ),
      ).rejects.toThrow('work failed');
    }
    const keptOn = new Set<number>();
    for (let i = 0; i < 6; i++) {
      await withLockedRead(
        ds,
        execute,
        async (m) => {
          await deferWrite(m, bump, [id, 1]);
          keptOn.add((await m.query<{ pid: number }[]>('SELECT pg_backend_pid() AS pid'))[0].pid);
        },
        lock,
      );
    }
    expect(await ds.query(`SELECT n FROM ${TABLE} WHERE id = $1`, [id])).toEqual([{ n: 6 }]);
    // No connection was dropped: the later transactions ran on those the failed ones used.
    expect([...keptOn].every((pid) => failedOn.has(pid))).toBe(true);
  });

  describe(deferWrite.name, () => {
    const insertKinds = `INSERT INTO ${KINDS} (id, n, note, doc, tags, at, flag) VALUES ($1, $2, $3, $4, $5, $6, $7)`;
    const kindsOf = (id: string) =>
      ds.query(`SELECT n, note, doc, tags, at, flag FROM ${KINDS} WHERE id = $1`, [id]) as Promise<unknown[]>;

    it('writes every kind of value exactly as the same statement with bind parameters does', async () => {
      const values = (id: string) => [
        id,
        42,
        "it's a back\\slash \\x and a ' quote",
        { text: "O'Brien", nested: [1, null, 'two'] },
        ['plain', 'with "quotes"', 'with, comma', "it's", null, 'back\\slash'],
        new Date('2026-11-28T19:20:21.123Z'),
        true,
      ];
      const bound = randomUUID();
      await ds.query(insertKinds, values(bound));
      const deferred = randomUUID();
      await withLockedRead(ds, lockRow(await row()), (m) => deferWrite(m, insertKinds, values(deferred)));
      expect(await kindsOf(deferred)).toEqual(await kindsOf(bound));
      expect((await kindsOf(deferred))[0]).toMatchObject({ n: 42, flag: true });

      const nulls = randomUUID();
      await withLockedRead(ds, lockRow(await row()), (m) =>
        deferWrite(m, insertKinds, [nulls, null, null, null, null, null, null]),
      );
      expect(await kindsOf(nulls)).toEqual([
        { n: null, note: null, doc: null, tags: null, at: null, flag: null },
      ]);
    });

    it('holds the write for the COMMIT, and sends it first when another statement comes', async () => {
      const id = await row();
      const bump = `UPDATE ${TABLE} SET n = n + 1 WHERE id = $1`;
      const seen = await withLockedRead(ds, lockRow(id), async (m) => {
        await deferWrite(m, bump, [id]);
        await deferWrite(m, bump, [id]);
        const [mid] = await m.query<{ n: number }[]>(`SELECT n FROM ${TABLE} WHERE id = $1`, [id]);
        await deferWrite(m, bump, [id]);
        return mid.n;
      });
      expect(seen).toBe(2); // both writes ran before the read, in order
      expect(await ds.query(`SELECT n FROM ${TABLE} WHERE id = $1`, [id])).toEqual([{ n: 3 }]);
    });

    it("locks every step's rows with BEGIN, before any step works, and sends the held writes with the COMMIT", async () => {
      const ids = [await row(), await row(), await row()];
      const bump = `UPDATE ${TABLE} SET n = n + 10 WHERE id = $1`;
      const name = statementName(bump)!.replace(/^sy_/, 'sy_d_');
      const outs = await withLockedReads(
        ds,
        ids.map((id, i) => ({
          lockSql: lockRow(id),
          work: async (m: StepSql, rows: { n: number }[]) => {
            if (i === 0) {
              // The last step's row is locked already, before its work began.
              const other = await ds.createQueryRunner();
              try {
                await expect(
                  other.query(`SELECT n FROM ${TABLE} WHERE id = $1 FOR UPDATE NOWAIT`, [ids[2]]),
                ).rejects.toThrow(/could not obtain lock/);
              } finally {
                await other.release();
              }
            }
            await deferWrite(m, bump, [id]);
            // On the transaction's connection: the write is prepared there, under its own name (a
            // statement in between sends the held writes first).
            const held = await m.query<{ name: string }[]>(
              'SELECT name FROM pg_prepared_statements WHERE name = $1',
              [name],
            );
            return held.length ? rows[0].n : -1;
          },
        })),
      );
      expect(outs).toEqual([0, 0, 0]);
      const after = (await ds.query(`SELECT n FROM ${TABLE} WHERE id = ANY($1::uuid[])`, [ids])) as {
        n: number;
      }[];
      expect(after.map((r) => r.n)).toEqual([10, 10, 10]);
    });

    it('fails the transaction at its COMMIT when the held write fails: nothing of it stays', async () => {
      const id = await row();
      const taken = randomUUID();
      await ds.query(`INSERT INTO ${KINDS} (id) VALUES ($1)`, [taken]);
      const insertId = `INSERT INTO ${KINDS} (id) VALUES ($1)`;
      await expect(
        withLockedRead(ds, lockRow(id), async (m) => {
          await m.query(`UPDATE ${TABLE} SET n = 9 WHERE id = $1`, [id]);
          await deferWrite(m, insertId, [taken]);
        }),
      ).rejects.toThrow(/duplicate key/);
      expect(await ds.query(`SELECT n FROM ${TABLE} WHERE id = $1`, [id])).toEqual([{ n: 0 }]);
      // The pool still works (a connection that prepared in a failed transaction is dropped).
      for (let i = 0; i < 6; i++) {
        const fresh = randomUUID();
        await withLockedRead(ds, lockRow(id), (m) => deferWrite(m, insertId, [fresh]));
        expect(await ds.query(`SELECT count(*)::int AS c FROM ${KINDS} WHERE id = $1`, [fresh])).toEqual([
          { c: 1 },
        ]);
      }
    });

    it('runs a write with binary values at once: pg binds them in binary, a literal would not', async () => {
      const id = await row();
      const bytes = Buffer.from([0, 39, 92, 255]);
      const note = `UPDATE ${TABLE} SET note = encode($2::bytea, 'hex') WHERE id = $1`;
      const seen = await withLockedRead(ds, lockRow(id), async (m) => {
        await deferWrite(m, note, [id, bytes]);
        return (await m.query<{ note: string }[]>(`SELECT note FROM ${TABLE} WHERE id = $1`, [id]))[0].note;
      });
      expect(seen).toBe('00275cff');
    });

    it('refuses statements on a StepSql kept past its transaction', async () => {
      const id = await row();
      let kept: StepSql | undefined;
      await withLockedRead(ds, lockRow(id), async (m) => {
        kept = m;
      });
      await expect(deferWrite(kept!, `UPDATE ${TABLE} SET n = 1 WHERE id = $1`, [id])).rejects.toThrow(
        /after its transaction ended/,
      );
      await expect(kept!.query('SELECT 1')).rejects.toThrow(/after its transaction ended/);
      expect(await ds.query(`SELECT n FROM ${TABLE} WHERE id = $1`, [id])).toEqual([{ n: 0 }]);
    });

    it('drops a connection that lost a statement it prepared, so the next use prepares it again', async () => {
      const id = await row();
      const lock = {
        name: `locked_read_lost_${process.pid}`,
        sql: `SELECT id, n FROM ${TABLE} WHERE id = $1::uuid FOR UPDATE`,
      };
      const execute = (lit: (v: string) => string) => `EXECUTE ${lock.name}(${lit(id)})`;
      // A connection prepares the lock, then loses it (as after a server-side DEALLOCATE ALL).
      await withLockedRead(ds, execute, (m) => m.query(`DEALLOCATE ${lock.name}`), lock);
      const outcomes: string[] = [];
      for (let i = 0; i < 4; i++) {
        outcomes.push(
          await withLockedRead(ds, execute, async () => 'ok', lock).catch((err: Error & { code?: string }) =>
            String(err.code),
          ),
        );
      }
      // That connection fails once (26000) and is replaced, instead of failing every step after.
      expect(outcomes.filter((o) => o !== 'ok')).toEqual(outcomes[0] === 'ok' ? [] : ['26000']);
      expect(outcomes.slice(1)).toEqual(['ok', 'ok', 'ok']);
    });

    it('runs the write at once outside a locked read (a TypeORM manager)', async () => {
      const id = await row();
      await ds.transaction(async (m) => {
        await deferWrite(m, `UPDATE ${TABLE} SET n = 5 WHERE id = $1`, [id]);
        expect(await m.query(`SELECT n FROM ${TABLE} WHERE id = $1`, [id])).toEqual([{ n: 5 }]);
      });
    });
  });

  describe(gatherWrite.name, () => {
    // Adds the gathered amounts to the row, and logs each statement's items into `note`.
    const addAll = (id: string): GatheredWrite<number> => ({
      sql: `UPDATE ${TABLE} SET n = n + $2, note = coalesce(note || '|', '') || $3 WHERE id = $1`,
      params: (items) => [id, items.reduce((a, b) => a + b, 0), items.join(',')],
    });

    it("sends one statement for every step's items, after the last step and with the COMMIT", async () => {
      const id = await row();
      const write = addAll(id);
      const step = (items: number[]) => ({
        lockSql: lockRow(id),
        work: async (m: StepSql, rows: { n: number }[]) => {
          await gatherWrite(m, write, items);
          return rows[0].n;
        },
      });
      const outs = await withLockedReads(ds, [step([1, 2]), step([]), step([4])]);
      expect(outs).toEqual([0, 0, 0]); // nothing was written before the last step's read
      expect(await ds.query(`SELECT n, note FROM ${TABLE} WHERE id = $1`, [id])).toEqual([
        { n: 7, note: '1,2,4' },
      ]);
    });

    it('gathers nothing from a transaction that rolled back', async () => {
      const id = await row();
      const write = addAll(id);
      await expect(
        withLockedReads(ds, [
          { lockSql: lockRow(id), work: (m: StepSql) => gatherWrite(m, write, [5]) },
          {
            lockSql: lockRow(id),
            work: async () => {
              throw new Error('second step failed');
            },
          },
        ]),
      ).rejects.toThrow('second step failed');
      await withLockedRead(ds, lockRow(id), (m) => gatherWrite(m, write, [3]));
      expect(await ds.query(`SELECT n, note FROM ${TABLE} WHERE id = $1`, [id])).toEqual([
        { n: 3, note: '3' },
      ]);
    });

    it('runs the write at once, for its own items, outside a locked read', async () => {
      const id = await row();
      await ds.transaction(async (m) => {
        await gatherWrite(m, addAll(id), [2, 3]);
        expect(await m.query(`SELECT n FROM ${TABLE} WHERE id = $1`, [id])).toEqual([{ n: 5 }]);
      });
    });
  });
});
