// preparedQuery against the real Postgres (the `switchyard_test` database on DATABASE_URL's server).
import type { DataSource } from 'typeorm';
import { testDatabaseUrl } from '@switchyard/testing';
import { createDataSource, ensureDatabase } from './data-source';
import { preparedQuery, statementName } from './prepared-query';

describe(statementName.name, () => {
  it('names the same text the same way and different texts differently', () => {
    const a = statementName('SELECT 1 WHERE $1::int > 0');
    expect(a).toMatch(/^sy_[0-9a-f]{20}$/);
    expect(statementName('SELECT 1 WHERE $1::int > 0')).toBe(a);
    expect(statementName('SELECT 2 WHERE $1::int > 0')).not.toBe(a);
  });
});

describe(preparedQuery.name, () => {
  let ds: DataSource;

  beforeAll(async () => {
    const url = testDatabaseUrl();
    await ensureDatabase(url);
    // One connection: every statement below runs on it, so its prepared statements are visible.
    ds = await createDataSource(url, { poolSize: 1, name: 'prepared-query-spec' });
  });

  afterAll(async () => {
    await ds?.destroy();
  });

  it('answers the rows with their bind parameters, and prepares the text once on the connection', async () => {
    const sql = 'SELECT $1::int + 1 AS n, $2::text AS t';
    expect(await preparedQuery(ds, sql, [41, 'x'])).toEqual([{ n: 42, t: 'x' }]);
    expect(await preparedQuery(ds, sql, [1, "it's"])).toEqual([{ n: 2, t: "it's" }]);
    const prepared = await preparedQuery<{ name: string }>(
      ds,
      'SELECT name FROM pg_prepared_statements WHERE statement = $1',
      [sql],
    );
    expect(prepared).toEqual([{ name: statementName(sql) }]);
  });

  it('rejects with the database error, and the connection goes on serving', async () => {
    await expect(preparedQuery(ds, 'SELECT 1 / $1::int AS n', [0])).rejects.toThrow('division by zero');
    expect(await preparedQuery(ds, 'SELECT 1 / $1::int AS n', [1])).toEqual([{ n: 1 }]);
  });
});
