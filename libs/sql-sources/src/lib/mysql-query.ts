import type { FieldPacket, PoolConnection, QueryError } from 'mysql2';
import { type CheckedSql, checkReadOnlySql } from './sql-guard';
import { type SqlLimits, type SqlParams, SqlQueryError, type SqlQueryResult } from './sql-query';

/** MySQL and MariaDB bound a statement's time under different names; the server says which it is. */
export type MysqlFlavour = 'mariadb' | 'mysql';

/** A server error (`errno` set) as an observation with its kind; else the connection failed. */
export function mysqlError(err: unknown, limits: SqlLimits): SqlQueryError {
  const e = err as Partial<QueryError> & { message?: string; sqlMessage?: string };
  if (typeof e.errno !== 'number' || e.fatal) {
    return new SqlQueryError(
      `cannot query the data source: ${e.message ?? String(err)}`,
      'sql_connection_error',
    );
  }
  const message = e.sqlMessage ?? e.message ?? 'unknown error';
  // MariaDB ER_STATEMENT_TIMEOUT, MySQL ER_QUERY_TIMEOUT, both ER_LOCK_WAIT_TIMEOUT.
  if (e.errno === 1969 || e.errno === 3024) {
    return new SqlQueryError(
      `query cancelled: it ran longer than the statement timeout of ${limits.statementTimeoutMs} ms`,
      'sql_timeout',
      e.sqlState,
    );
  }
  if (e.errno === 1205) {
    return new SqlQueryError(`query cancelled: ${message} (lock timeout)`, 'sql_timeout', e.sqlState);
  }
  // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
  if (e.errno === 1792) {
    return new SqlQueryError(`refused by the read-only transaction: ${message}`, 'sql_read_only', e.sqlState);
  }
  // Access denied, unknown database, too many connections.
  if (e.errno === 1045 || e.errno === 1044 || e.errno === 1049 || e.errno === 1040) {
    return new SqlQueryError(`cannot query the data source: ${message}`, 'sql_connection_error', e.sqlState);
  }
  return new SqlQueryError(
    `query failed (${e.code ?? `error ${e.errno}`}, SQLSTATE ${e.sqlState ?? '?'}): ${message}`,
    'sql_error',
    e.sqlState,
  );
}

function run(conn: PoolConnection, sql: string): Promise<void> {
  return new Promise((resolve, reject) => conn.query(sql, (err) => (err ? reject(err) : resolve())));
}

/** JSON-friendly cells: binary as \x-hex, as the Postgres path shows bytea. */
function cell(v: unknown): unknown {
  return Buffer.isBuffer(v) ? `\\x${v.toString('hex')}` : v;
}

/**
 * Runs one checked statement on a MySQL/MariaDB connection in a READ ONLY transaction with the
 * server's statement time bound (MariaDB `max_statement_time`, MySQL `max_execution_time`) and
 * the lock wait bound, parameters as `?` placeholders, and always rolls back. Rows stream: the row
 * and byte caps stop reading as soon as they are reached, and the connection, which still has
 * rows in flight, is then destroyed (`truncated` tells the caller to discard it).
 */
export async function runReadOnlyMysql(
  conn: PoolConnection,
  flavour: MysqlFlavour,
  checked: CheckedSql,
  params: SqlParams,
  limits: SqlLimits,
): Promise<SqlQueryResult & { destroyed: boolean }> {
  const ms = Math.max(1, Math.trunc(limits.statementTimeoutMs));
  try {
    // One SET for both bounds: a round trip less per statement.
    const statementTime =
      flavour === 'mariadb' ? `max_statement_time = ${ms / 1000}` : `max_execution_time = ${ms}`;
    await run(
      conn,
      `SET SESSION ${statementTime}, innodb_lock_wait_timeout = ${Math.max(1, Math.ceil(ms / 1000))}`,
    );
    await run(conn, 'START TRANSACTION READ ONLY');
  } catch (err) {
    throw mysqlError(err, limits);
  }
  let destroyed = false;
  try {
    const result = await new Promise<SqlQueryResult>((resolve, reject) => {
      let columns: string[] = [];
      const rows: unknown[][] = [];
      let bytes = 0;
      let settled = false;
      const stop = (truncatedBy: 'max_rows' | 'max_bytes') => {
        settled = true;
        destroyed = true;
        conn.destroy();
        resolve({ columns, rows, row_count: rows.length, truncated: true, truncated_by: truncatedBy });
      };
      const q = conn.query({ sql: checked.text, values: params, rowsAsArray: true });
      q.on('fields', (fields: FieldPacket[]) => {
        columns = fields.map((f) => f.name);
        bytes = Buffer.byteLength(JSON.stringify(columns));
      });
      q.on('result', (raw: unknown) => {
        if (settled || !Array.isArray(raw)) {
          return;
        }
        if (rows.length >= limits.maxRows) {
          stop('max_rows');
          return;
        }
        const row = raw.map(cell);
        bytes += Buffer.byteLength(JSON.stringify(row)) + 1;
        if (bytes > limits.maxBytes) {
          stop('max_bytes');
          return;
        }
        rows.push(row);
      });
      q.on('error', (err: Error) => {
        if (!settled) {
          settled = true;
          reject(mysqlError(err, limits));
        }
      });
      q.on('end', () => {
        if (!settled) {
          settled = true;
          resolve({ columns, rows, row_count: rows.length, truncated: false });
        }
      });
    });
    return { ...result, destroyed };
  } finally {
    if (!destroyed) {
      await run(conn, 'ROLLBACK').catch(() => undefined);
    }
  }
}

/** Checks the statement with MySQL's lexing, then runs it (see runReadOnlyMysql). */
export function mysqlQuery(
  conn: PoolConnection,
  flavour: MysqlFlavour,
  args: { sql: string; params: SqlParams },
  limits: SqlLimits,
): Promise<SqlQueryResult & { destroyed: boolean }> {
  return runReadOnlyMysql(conn, flavour, checkReadOnlySql(args.sql, 'mysql'), args.params, limits);
}
