import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { StepSql } from './locked-read';

/** Distinct statement texts given a name; any beyond run unnamed (parsed and planned each time). */
const MAX_NAMED = 256;
const names = new Map<string, string>();
/** Whether the process was told, once, that the names ran out. */
let warnedFull = false;

/**
 * The name of `sql` as a prepared statement: the same text always gets the same name, so each
 * pooled connection parses and plans it once instead of at every run (tools/bench/PROFILE.md,
 * round 4). For a process's hot statements, whose texts are few; past MAX_NAMED, undefined.
 */
export function statementName(sql: string): string | undefined {
  let name = names.get(sql);
  if (!name && names.size < MAX_NAMED) {
    name = `sy_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    names.set(sql, name);
  } else if (!name && !warnedFull) {
    warnedFull = true;
    new Logger('PreparedStatements').warn(
      `${MAX_NAMED} statement texts are named already: further ones run unnamed (parsed and planned each time)`,
    );
  }
  return name;
}

/**
 * One statement of a hot path, straight through the DataSource's pg pool as a named prepared
 * statement, in a transaction of its own: what `ds.query` does without TypeORM's query runner
 * (a QueryRunner built and released, the statement parsed and planned each time). Measured on
 * an LLM call's metering write: 2.9 ms through `ds.query`, under 1 ms this way (PROFILE.md, round 6).
 */
export async function preparedQuery<R>(ds: DataSource, sql: string, params: unknown[] = []): Promise<R[]> {
  const pool = (ds.driver as PostgresDriver).master as Pool;
  const result = await pool.query({ name: statementName(sql), text: sql, values: params });
  return result.rows as R[];
}

/**
 * The pool as a StepSql: each statement alone, named and prepared (`preparedQuery`), for the
 * repositories' functions that take one (outside a transaction).
 */
export function pooledSql(ds: DataSource): StepSql {
  return { query: (sql: string, params?: unknown[]) => preparedQuery(ds, sql, params) as never };
}
