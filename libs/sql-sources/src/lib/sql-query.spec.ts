import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type SqlLimits, SqlQueryError, runReadOnly, sqlQuery } from './sql-query';

// Against the real Postgres. runReadOnly is called without the guard here on purpose: the READ
// ONLY transaction and the extended protocol must refuse writes and statement chains by themselves.

const ADMIN_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/switchyard';
const db = `sy_sql_unit_${randomBytes(4).toString('hex')}`;
const limits: SqlLimits = { statementTimeoutMs: 2000, maxRows: 100, maxBytes: 100_000 };
let client: pg.Client;

function urlFor(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function failure(p: Promise<unknown>): Promise<SqlQueryError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SqlQueryError);
  return err as SqlQueryError;
}

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: urlFor('postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${db}`);
  await admin.end();
  client = new pg.Client({ connectionString: urlFor(db) });
  await client.connect();
  await client.query(`CREATE TABLE items (id int PRIMARY KEY, name text, data bytea, at timestamptz)`);
  await client.query(
    `INSERT INTO items SELECT i, 'item ' || i, '\\xdead'::bytea, '2026-01-01T00:00:00Z' FROM generate_series(1, 50) i`,
  );
});

afterAll(async () => {
  await client?.end();
  const admin = new pg.Client({ connectionString: urlFor('postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await admin.end();
});

const raw = (text: string) => ({ kind: 'query' as const, text });

describe('runReadOnly (no guard)', () => {
  it('reads rows with parameters sent separately, as arrays with column names', async () => {
    const res = await runReadOnly(
      client,
      raw('SELECT id, name, data, at FROM items WHERE id <= $1 ORDER BY id'),
      [2],
      limits,
    );
    expect(res).toEqual({
      columns: ['id', 'name', 'data', 'at'],
      rows: [
        [1, 'item 1', '\\xdead', '2026-01-01T00:00:00.000Z'],
        [2, 'item 2', '\\xdead', '2026-01-01T00:00:00.000Z'],
      ],
      row_count: 2,
      truncated: false,
    });
  });

  it('caps rows inside Postgres and reports the truncation', async () => {
    const res = await runReadOnly(client, raw('SELECT id FROM items ORDER BY id'), [], {
      ...limits,
      maxRows: 5,
    });
    expect(res.rows).toEqual([[1], [2], [3], [4], [5]]);
    expect(res).toMatchObject({ row_count: 5, truncated: true, truncated_by: 'max_rows' });
  });

  it('caps the bytes of the rows', async () => {
    const res = await runReadOnly(client, raw("SELECT repeat('x', 500) FROM items"), [], {
      ...limits,
      maxBytes: 2048,
    });
    expect(res.row_count).toBeLessThan(5);
    expect(res).toMatchObject({ truncated: true, truncated_by: 'max_bytes' });
  });

  it('lets the read-only transaction refuse writes the guard would have caught', async () => {
    const err = await failure(
      runReadOnly(client, { kind: 'explain', text: 'DELETE FROM items' }, [], limits),
    );
    expect(err.code).toBe('sql_read_only');
    expect(err.message).toMatch(/read-only transaction/);
    const ddl = await failure(
      runReadOnly(client, { kind: 'explain', text: 'CREATE TABLE x (a int)' }, [], limits),
    );
    expect(ddl.code).toBe('sql_read_only');
    expect((await client.query('SELECT count(*)::int AS n FROM items')).rows[0].n).toBe(50);
  });

  it('lets Postgres refuse chained statements even without parameters (extended protocol)', async () => {
    const err = await failure(
      runReadOnly(client, { kind: 'explain', text: 'SELECT 1; SELECT 2' }, [], limits),
    );
    expect(err.code).toBe('sql_error');
    expect(err.message).toMatch(/cannot insert multiple commands into a prepared statement/);
  });

  it('stops a query at the statement timeout', async () => {
    const started = Date.now();
    const err = await failure(
      runReadOnly(client, raw('SELECT pg_sleep(5)'), [], { ...limits, statementTimeoutMs: 200 }),
    );
    expect(err.code).toBe('sql_timeout');
    expect(Date.now() - started).toBeLessThan(3000);
    // The session is usable afterwards and its settings were local to the transaction.
    expect((await client.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('0');
  });

  it('reports syntax errors at the position the agent wrote', async () => {
    const err = await failure(sqlQuery(client, { sql: 'SELECT FROM WHERE', params: [] }, limits));
    expect(err.code).toBe('sql_error');
    expect(err.message).toMatch(/SQLSTATE 42601.*at character 13/);
  });
});
