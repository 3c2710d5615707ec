import type { Pool, PoolClient, QueryResult } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { statementName } from './prepared-query';

/** What a step's code needs of its transaction: statements (a TypeORM EntityManager is one). */
export type StepSql = Pick<EntityManager, 'query'>;

/** Quotes a value as an SQL string literal (the pg client's own escaping). */
export type Literal = (value: string) => string;

/**
 * A locking read kept as a statement of its connection (SQL `PREPARE name AS sql`, `$n`
 * parameters): prepared on each pooled connection the first time it is used there, then run with
 * `EXECUTE name(…)` — so the read is planned once per connection, not at every step, and still
 * goes with `BEGIN` in one round trip (a protocol-level prepared statement cannot).
 */
export interface PreparedLock {
  name: string;
  sql: string;
}

/** One step of a transaction: its locking read and the work on what it read. */
export interface LockedWork<T, R = unknown> {
  /** The read: a query, or `EXECUTE` of `prepare`. */
  lockSql(lit: Literal): string;
  /** The statement `lockSql` EXECUTEs, when it is one. */
  prepare?: PreparedLock;
  // (A method: a step's work may name the type of the rows its read returns.)
  work(m: StepSql, rows: R[]): Promise<T>;
}

/**
 * Runs `work` in a READ COMMITTED transaction that opens with `BEGIN` and the locking read
 * `lockSql` in ONE round trip (a simple-protocol query: `lockSql` gets no bind parameters, it
 * quotes its values with `lit`), then commits. `ds.transaction` spends a round trip on
 * `START TRANSACTION` alone, one of a step's five (tools/bench/PROFILE.md). The statements of
 * `work` run on the same pooled connection (straight through pg, without TypeORM's per-query
 * broadcaster) as named prepared statements (`statementName`). Any error rolls back and propagates; a
 * connection that cannot even roll back is destroyed rather than returned to the pool.
 */
export async function withLockedRead<T, R>(
  ds: DataSource,
  lockSql: (lit: Literal) => string,
  work: (m: StepSql, rows: R[]) => Promise<T>,
  prepare?: PreparedLock,
): Promise<T> {
  const [out] = await withLockedReads(ds, [{ lockSql, work, prepare }]);
  return out;
}

/** The PreparedLock names each pooled connection holds. */
const preparedOn = new WeakMap<PoolClient, Set<string>>();

/**
 * `withLockedRead` for several steps in ONE transaction (group commit): each step's locking read
 * and work in turn, then one COMMIT for all. The first read goes with `BEGIN`. Any error rolls
 * back every step and propagates (the caller runs them again one by one: see StepCommitGroup).
 */
export async function withLockedReads<T>(ds: DataSource, steps: LockedWork<T>[]): Promise<T[]> {
  const pool = (ds.driver as PostgresDriver).master as Pool;
  const client: PoolClient = await pool.connect();
  const m: StepSql = {
    query: async <R>(sql: string, params?: unknown[]): Promise<R> =>
      (await client.query({ name: statementName(sql), text: sql, values: params })).rows as R,
  };
  const lit: Literal = (v) => client.escapeLiteral(v);
  let prepared = preparedOn.get(client);
  if (!prepared) {
    prepared = new Set<string>();
    preparedOn.set(client, prepared);
  }
  // Whether this transaction prepared a statement: should it fail, the connection is dropped
  // rather than trusted to hold exactly what `prepared` says.
  let preparing = false;
  const read = async (step: LockedWork<T>, begin: boolean): Promise<unknown[]> => {
    const prepare = step.prepare && !prepared.has(step.prepare.name) ? step.prepare : undefined;
    if (prepare) {
      prepared.add(prepare.name);
      preparing = true;
    }
    const sql = `${prepare ? `PREPARE ${prepare.name} AS ${prepare.sql}; ` : ''}${begin ? 'BEGIN; ' : ''}${step.lockSql(lit)}`;
    const result = (await client.query(sql)) as unknown as QueryResult | QueryResult[];
    return (Array.isArray(result) ? result[result.length - 1] : result).rows;
  };
  let open = false;
  let broken: Error | undefined;
  try {
    const outs: T[] = [];
    for (const step of steps) {
      const begin = !open;
      open = true; // from here on, a failure (of the read too) rolls back
      const rows = await read(step, begin);
      outs.push(await step.work(m, rows));
    }
    await client.query('COMMIT');
    open = false;
    return outs;
  } catch (err) {
    if (open) {
      await client.query('ROLLBACK').catch((rollbackErr: Error) => {
        broken = rollbackErr;
      });
    }
    if (preparing) {
      broken ??= err as Error;
    }
    throw err;
  } finally {
    client.release(broken);
  }
}
