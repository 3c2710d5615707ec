import type { RunErrorCodes } from '@switchyard/contracts';
import type pg from 'pg';
import { SqlSourceError } from './sql-source.error';
import { type CheckedSql, checkReadOnlySql } from './sql-guard';

/** Parameter values of a query ($1, $2, …). */
export type SqlParams = (string | number | boolean | null)[];

export interface SqlLimits {
  statementTimeoutMs: number;
  maxRows: number;
  maxBytes: number;
}

export interface SqlQueryResult {
  columns: string[];
  rows: unknown[][];
  row_count: number;
  truncated: boolean;
  /** Why rows were left out, when some were. */
  truncated_by?: 'max_rows' | 'max_bytes';
}

/** A query Postgres refused or stopped: an observation the agent can act on. */
export class SqlQueryError extends SqlSourceError {
  constructor(
    message: string,
    code: RunErrorCodes<'sql_timeout' | 'sql_read_only' | 'sql_error' | 'sql_connection_error'>,
    readonly sqlstate?: string,
  ) {
    super(message, code);
    this.name = 'SqlQueryError';
  }
}

// The row cap is applied inside Postgres, so a huge table is never read past max_rows + 1.
const WRAP_HEAD = 'SELECT * FROM (\n';
export function limitedSql(checked: CheckedSql, limit: number): string {
  // EXPLAIN cannot be a subquery; its few plan lines are capped after the fact. The newline
  // before ")" keeps a trailing "-- comment" from swallowing it.
  return checked.kind === 'explain'
    ? checked.text
    : `${WRAP_HEAD}${checked.text}\n) AS sy_query LIMIT ${limit}`;
}

/** JSON-friendly cell values: bytea as \x-hex (as psql shows it), timestamps as ISO text. */
function cell(v: unknown): unknown {
  if (Buffer.isBuffer(v)) {
    return `\\x${v.toString('hex')}`;
  }
  if (v instanceof Date) {
    return Number.isNaN(v.getTime()) ? String(v) : v.toISOString();
  }
  return v;
}

/** Applies the row and byte caps to what Postgres returned (at most maxRows + 1 rows). */
export function shapeResult(res: pg.QueryArrayResult, limits: SqlLimits): SqlQueryResult {
  const columns = res.fields.map((f) => f.name);
  const rows: unknown[][] = [];
  let bytes = Buffer.byteLength(JSON.stringify(columns));
  let truncatedBy: SqlQueryResult['truncated_by'];
  for (const raw of res.rows) {
    if (rows.length >= limits.maxRows) {
      truncatedBy = 'max_rows';
      break;
    }
    const row = raw.map(cell);
    bytes += Buffer.byteLength(JSON.stringify(row)) + 1;
    if (bytes > limits.maxBytes) {
      truncatedBy = 'max_bytes';
      break;
    }
    rows.push(row);
  }
  return {
    columns,
    rows,
    row_count: rows.length,
    truncated: truncatedBy !== undefined,
    ...(truncatedBy ? { truncated_by: truncatedBy } : {}),
  };
}

/** Postgres' error as an observation with a code saying what kind of failure it was. */
export function sqlError(err: unknown, limits: SqlLimits, offset: number): Error {
  const e = err as { code?: string; message?: string; position?: string; hint?: string };
  if (typeof e.code !== 'string' || !/^[0-9A-Z]{5}$/.test(e.code)) {
    // Not a server error: the connection failed (refused, DNS, TLS, closed).
    return new SqlQueryError(
      `cannot query the data source: ${e.message ?? String(err)}`,
      'sql_connection_error',
    );
  }
  const message = e.message ?? 'unknown error';
  if (e.code === '57014') {
    return new SqlQueryError(
      `query cancelled: it ran longer than the statement timeout of ${limits.statementTimeoutMs} ms`,
      'sql_timeout',
      e.code,
    );
  }
  if (e.code === '55P03') {
    return new SqlQueryError(`query cancelled: ${message} (lock timeout)`, 'sql_timeout', e.code);
  }
  if (e.code === '25006') {
    return new SqlQueryError(`refused by the read-only transaction: ${message}`, 'sql_read_only', e.code);
  }
  // Positions refer to the wrapped statement; report them against what the agent wrote.
  const at = e.position ? ` at character ${Math.max(1, Number(e.position) - offset)}` : '';
  const hint = e.hint ? ` (hint: ${e.hint})` : '';
  if (e.code.startsWith('08') || e.code.startsWith('28') || e.code === '3D000') {
    return new SqlQueryError(`cannot query the data source: ${message}`, 'sql_connection_error', e.code);
  }
  return new SqlQueryError(`query failed (SQLSTATE ${e.code}): ${message}${at}${hint}`, 'sql_error', e.code);
}

/**
 * Runs one checked statement on a client in a READ ONLY transaction with statement, lock and
 * idle-in-transaction timeouts, parameters sent separately over the extended protocol (which
 * also refuses several statements), and always rolls back.
 */
export async function runReadOnly(
  client: pg.ClientBase,
  checked: CheckedSql,
  params: SqlParams,
  limits: SqlLimits,
): Promise<SqlQueryResult> {
  const ms = Math.trunc(limits.statementTimeoutMs);
  const text = limitedSql(checked, limits.maxRows + 1);
  const offset = checked.kind === 'explain' ? 0 : WRAP_HEAD.length;
  await client.query('BEGIN READ ONLY');
  try {
    // The guard lexes strings the standard way; make the server agree.
    await client.query(
      `SET LOCAL statement_timeout = ${ms}; SET LOCAL lock_timeout = ${ms}; ` +
        `SET LOCAL idle_in_transaction_session_timeout = ${ms + 5000}; SET LOCAL standard_conforming_strings = on`,
    );
    // queryMode 'extended' (missing from @types/pg): even a query without parameters is parsed as
    // one prepared statement, so Postgres itself refuses a second statement.
    const res = await client.query({
      text,
      values: params,
      rowMode: 'array',
      queryMode: 'extended',
    } as pg.QueryArrayConfig);
    return shapeResult(res as pg.QueryArrayResult, limits);
  } catch (err) {
    throw sqlError(err, limits, offset);
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
  }
}

/** Checks the statement, then runs it (see runReadOnly). */
export function sqlQuery(
  client: pg.ClientBase,
  args: { sql: string; params: SqlParams },
  limits: SqlLimits,
): Promise<SqlQueryResult> {
  return runReadOnly(client, checkReadOnlySql(args.sql), args.params, limits);
}
