import { randomBytes } from 'node:crypto';
import mysql, { type PoolConnection } from 'mysql2';
import { mysqlQuery, runReadOnlyMysql } from './mysql-query';
import { SqlQueryError, type SqlLimits } from './sql-query';

// Against a real MariaDB (MARIADB_URL; tools/scripts/infra.sh mariadb starts one). runReadOnlyMysql
// is called without the guard where the server itself must refuse: the READ ONLY transaction.

const url = new URL(process.env['MARIADB_URL'] ?? 'mysql://switchyard:switchyard@127.0.0.1:3306');
const db = `sy_mysql_unit_${randomBytes(4).toString('hex')}`;
const limits: SqlLimits = { statementTimeoutMs: 2000, maxRows: 100, maxBytes: 100_000 };
let pool: mysql.Pool;

const exec = (sql: string) =>
  new Promise<void>((resolve, reject) => pool.query(sql, (err) => (err ? reject(err) : resolve())));
const conn = () =>
  new Promise<PoolConnection>((resolve, reject) =>
    pool.getConnection((err, c) => (err ? reject(err) : resolve(c))),
  );

async function failure(p: Promise<unknown>): Promise<SqlQueryError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SqlQueryError);
  return err as SqlQueryError;
}

beforeAll(async () => {
  const admin = mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  });
  await admin.promise().query(`CREATE DATABASE ${db}`);
  await admin.promise().end();
  pool = mysql.createPool({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: db,
    connectionLimit: 2,
    dateStrings: true,
    decimalNumbers: true,
  });
  await exec(
    'CREATE TABLE items (id int PRIMARY KEY, name text, price decimal(10,2), data blob, at datetime)',
  );
  await exec(
    `INSERT INTO items SELECT seq, CONCAT('item ', seq), seq * 1.5, X'dead', '2026-01-01 10:00:00' FROM seq_1_to_50`,
  );
});

afterAll(async () => {
  await exec(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
  await new Promise<void>((resolve) => pool.end(() => resolve()));
});

describe(runReadOnlyMysql.name, () => {
  it('returns columns and rows as JSON-friendly cells, with ? parameters', async () => {
    const c = await conn();
    const res = await mysqlQuery(
      c,
      'mariadb',
      { sql: 'SELECT id, name, price, data, at FROM items WHERE id <= ? ORDER BY id;', params: [2] },
      limits,
    );
    c.release();
    expect(res).toEqual({
      columns: ['id', 'name', 'price', 'data', 'at'],
      rows: [
        [1, 'item 1', 1.5, '\\xdead', '2026-01-01 10:00:00'],
        [2, 'item 2', 3, '\\xdead', '2026-01-01 10:00:00'],
      ],
      row_count: 2,
      truncated: false,
      destroyed: false,
    });
  });

  it('stops reading at the row cap and at the byte cap, and destroys the connection', async () => {
    const c = await conn();
    const rows = await mysqlQuery(
      c,
      'mariadb',
      { sql: 'SELECT id FROM items', params: [] },
      {
        ...limits,
        maxRows: 5,
      },
    );
    expect(rows).toMatchObject({ row_count: 5, truncated: true, truncated_by: 'max_rows', destroyed: true });
    const c2 = await conn();
    const bytes = await mysqlQuery(
      c2,
      'mariadb',
      { sql: 'SELECT name FROM items', params: [] },
      {
        ...limits,
        maxBytes: 60,
      },
    );
    expect(bytes).toMatchObject({ truncated: true, truncated_by: 'max_bytes', destroyed: true });
    expect(bytes.row_count).toBeLessThan(5);
  });

  it('ends a statement past the timeout as sql_timeout', async () => {
    const c = await conn();
    const err = await failure(
      mysqlQuery(
        c,
        'mariadb',
        { sql: 'SELECT SLEEP(5) FROM items LIMIT 2', params: [] },
        {
          ...limits,
          statementTimeoutMs: 300,
        },
      ),
    );
    c.release();
    expect(err.code).toBe('sql_timeout');
    expect(err.message).toContain('300 ms');
  });

  it('the server refuses a write in the READ ONLY transaction, and the table is unchanged', async () => {
    const c = await conn();
    const err = await failure(
      runReadOnlyMysql(
        c,
        'mariadb',
        { kind: 'query', text: 'INSERT INTO items (id) VALUES (999)' },
        [],
        limits,
      ),
    );
    c.release();
    expect(err.code).toBe('sql_read_only');
    const c2 = await conn();
    const count = await mysqlQuery(
      c2,
      'mariadb',
      { sql: 'SELECT count(*) AS n FROM items', params: [] },
      limits,
    );
    c2.release();
    expect(count.rows).toEqual([[50]]);
  });

  it('reports an SQL error as an observation naming the server error', async () => {
    const c = await conn();
    const err = await failure(
      mysqlQuery(c, 'mariadb', { sql: 'SELECT nope FROM items', params: [] }, limits),
    );
    c.release();
    expect(err.code).toBe('sql_error');
    expect(err.message).toContain("Unknown column 'nope'");
    expect(err.message).toContain('ER_BAD_FIELD_ERROR');
  });
});
