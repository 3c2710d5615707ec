import type { Pool, PoolClient, QueryResult } from 'pg';
import { prepareValue } from 'pg/lib/utils';
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
  /** The read: ONE statement, a query or `EXECUTE` of `prepare`. */
  lockSql(lit: Literal): string;
  /** The statement `lockSql` EXECUTEs, when it is one. */
  prepare?: PreparedLock;
  /**
   * A second read, ONE statement, sent in the same round trip right after `lockSql`: a statement
   * of its own, so under READ COMMITTED it sees what committed while the lock waited (a subquery
   * of the locking statement would read the snapshot taken before the wait). Its rows are the
   * work's `after`.
   */
  readAfter?(lit: Literal): string;
  // (A method: a step's work may name the type of the rows its read returns.)
  work(m: StepSql, rows: R[], after: unknown[]): Promise<T>;
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
  work: (m: StepSql, rows: R[], after: unknown[]) => Promise<T>,
  prepare?: PreparedLock,
  readAfter?: (lit: Literal) => string,
): Promise<T> {
  const [out] = await withLockedReads(ds, [{ lockSql, work, prepare, ...(readAfter ? { readAfter } : {}) }]);
  return out;
}

/** Where `withLockedReads`' statements keep a write `deferWrite` handed them. */
const DEFER = Symbol('deferWrite');

/** The StepSql of `withLockedReads`: it can hold a write for the transaction's next round trip. */
interface DeferringSql extends StepSql {
  [DEFER](sql: string, params: unknown[]): boolean;
}

/**
 * Runs a write whose result nobody reads. In a `withLockedReads` transaction it goes with the
 * transaction's next round trip instead of one of its own: with the COMMIT, or a statement a
 * step's work sends before it (one round trip less per step: tools/bench/PROFILE.md, round 9). It goes as
 * `EXECUTE` of an SQL-level prepared statement (prepared once per connection, like a PreparedLock),
 * its values inlined as literals with pg's own conversion of bind parameters. Any statement the
 * transaction runs in between sends it first, so the statements keep their order; should it fail,
 * the transaction fails there, as it would have here. Elsewhere (a TypeORM manager) it runs now.
 */
export async function deferWrite(m: StepSql, sql: string, params: unknown[]): Promise<void> {
  const defer = (m as Partial<DeferringSql>)[DEFER];
  if (defer?.(sql, params)) {
    return;
  }
  await m.query(sql, params);
}

/**
 * A write that gathers items from every step of a transaction and goes ONCE, with its COMMIT:
 * one statement for a whole group commit (e.g. the model calls its deltas carry, `USAGE_WRITE`),
 * so whatever it locks is locked once and in the statement's own order, at the end of the
 * transaction, however the group's steps are ordered.
 */
export interface GatheredWrite<I> {
  sql: string;
  params(items: I[]): unknown[];
}

const GATHER = Symbol('gatherWrite');

interface GatheringSql extends StepSql {
  [GATHER](write: GatheredWrite<unknown>, items: unknown[]): void;
}

/**
 * Adds `items` to `write`, sent with the transaction's COMMIT (see GatheredWrite) when `m` is a
 * `withLockedReads` transaction's; elsewhere (a TypeORM manager) the write runs now, for these
 * items alone. Nothing is sent for no items.
 */
export async function gatherWrite<I>(m: StepSql, write: GatheredWrite<I>, items: I[]): Promise<void> {
  if (items.length === 0) {
    return;
  }
  const gather = (m as Partial<GatheringSql>)[GATHER];
  if (gather) {
    gather(write as GatheredWrite<unknown>, items);
    return;
  }
  await m.query(write.sql, write.params(items));
}

const QUOTES = /'/g;
const BACKSLASHES = /\\/g;

/**
 * `value` as an SQL string literal, exactly as pg's `escapeLiteral` writes it (quotes doubled; with
 * a backslash, ` E'…'` and backslashes doubled), in O(n) flat strings: pg's appends one character
 * at a time, a cons string per character — 53 of the 191 KB the orchestrator allocated for a
 * pure-loop step with its ~1.3 KB delta, its largest allocation (tools/bench/PROFILE.md, round 14).
 */
export function escapeLiteral(value: string): string {
  const quoted = value.includes("'") ? value.replace(QUOTES, "''") : value;
  return value.includes('\\') ? ` E'${quoted.replace(BACKSLASHES, '\\\\')}'` : `'${quoted}'`;
}

/**
 * A bind parameter as an SQL literal: pg's conversion of the value, quoted. (Binary values are
 * not inlined: pg binds a Buffer in binary format, which a literal would not reproduce.)
 */
function sqlLiteral(value: unknown, lit: Literal): string {
  const v = prepareValue(value);
  return v === null ? 'NULL' : lit(v as string);
}

/** Whether pg would bind this value in binary format (a Buffer or typed array). */
const isBinary = (value: unknown): boolean => ArrayBuffer.isView(value);

/** "prepared statement does not exist": a connection that lost what `prepared` says it holds. */
const UNDEFINED_PSTATEMENT = '26000';

/** The PreparedLock names each pooled connection holds. */
const preparedOn = new WeakMap<PoolClient, Set<string>>();

/**
 * `withLockedRead` for several steps in ONE transaction (group commit): `BEGIN` and every step's
 * locking read in one round trip, then each step's work in turn, then one COMMIT for all — two
 * round trips for the group however many steps it holds, unless a step's work asks for more. The
 * steps must read rows no other step of the group writes (StepCommitGroup: one step per run).
 * Any error rolls back every step and propagates (the caller runs them again one by one).
 */
export async function withLockedReads<T>(ds: DataSource, steps: LockedWork<T>[]): Promise<T[]> {
  const pool = (ds.driver as PostgresDriver).master as Pool;
  const client: PoolClient = await pool.connect();
  const lit: Literal = escapeLiteral;
  let prepared = preparedOn.get(client);
  if (!prepared) {
    prepared = new Set<string>();
    preparedOn.set(client, prepared);
  }
  // A PREPARE counts once the round trip that carried it succeeded (a prepared statement outlives
  // a rolled-back transaction); should that round trip fail, the connection is dropped rather
  // than trusted to hold exactly what `prepared` says.
  let broken: Error | undefined;
  /** Sends a simple query that PREPAREs `names` first (or none). */
  const send = async (sql: string, names: string[]): Promise<QueryResult | QueryResult[]> => {
    try {
      const result = (await client.query(sql)) as unknown as QueryResult | QueryResult[];
      names.forEach((n) => prepared.add(n));
      return result;
    } catch (err) {
      if (names.length || (err as { code?: string }).code === UNDEFINED_PSTATEMENT) {
        broken = err as Error;
      }
      throw err;
    }
  };
  // Deferred writes (deferWrite): the statements to go before the next round trip's own, and
  // the names they PREPARE.
  let deferred = '';
  let deferredNames: string[] = [];
  const takeDeferred = (): [string, string[]] => {
    const out: [string, string[]] = [deferred, deferredNames];
    deferred = '';
    deferredNames = [];
    return out;
  };
  // The transaction ended (committed or rolled back): its statements are not to be used.
  let ended = false;
  const assertOpen = (): void => {
    if (ended) {
      throw new Error('a statement of a locked read ran after its transaction ended');
    }
  };
  // Gathered writes (gatherWrite): each one's items, in the order the steps gave them.
  const gathered = new Map<GatheredWrite<unknown>, unknown[]>();
  const m: DeferringSql & GatheringSql = {
    query: async <R>(sql: string, params?: unknown[]): Promise<R> => {
      assertOpen();
      if (deferred) {
        await send(...takeDeferred());
      }
      return (await client.query({ name: statementName(sql), text: sql, values: params })).rows as R;
    },
    [DEFER]: (sql, params) => {
      assertOpen();
      const name = statementName(sql)?.replace(/^sy_/, 'sy_d_');
      if (!name || params.some(isBinary)) {
        return false;
      }
      const args = params.length ? `(${params.map((p) => sqlLiteral(p, lit)).join(', ')})` : '';
      if (!prepared.has(name) && !deferredNames.includes(name)) {
        // (A newline first: a statement ending in a `--` comment still ends there.)
        deferred += `PREPARE ${name} AS ${sql}\n; `;
        deferredNames.push(name);
      }
      deferred += `EXECUTE ${name}${args}; `;
      return true;
    },
    [GATHER]: (write, items) => {
      assertOpen();
      const all = gathered.get(write);
      if (all) {
        all.push(...items);
      } else {
        gathered.set(write, [...items]);
      }
    },
  };
  /**
   * `BEGIN` and every step's locking read, in ONE round trip (the reads' results in step order):
   * a group's steps are of distinct runs, so no read needs what another step writes.
   */
  const readAll = async (): Promise<[unknown[], unknown[]][]> => {
    const locks = new Map<string, PreparedLock>();
    for (const step of steps) {
      if (step.prepare && !prepared.has(step.prepare.name)) {
        locks.set(step.prepare.name, step.prepare);
      }
    }
    const prepares = [...locks.values()].map((l) => `PREPARE ${l.name} AS ${l.sql}\n; `).join('');
    const reads = steps
      .flatMap((step) => (step.readAfter ? [step.lockSql(lit), step.readAfter(lit)] : [step.lockSql(lit)]))
      .join('; ');
    const result = await send(`${prepares}BEGIN; ${reads}`, [...locks.keys()]);
    // One result per statement: the PREPAREs', BEGIN's, then each step's read and second read.
    const results = Array.isArray(result) ? result : [result];
    let next = results.length - steps.reduce((n, step) => n + (step.readAfter ? 2 : 1), 0);
    return steps.map((step) => {
      const rows = results[next++].rows as unknown[];
      return [rows, step.readAfter ? (results[next++].rows as unknown[]) : []];
    });
  };
  let open = false;
  try {
    open = true; // from here on, a failure (of the reads too) rolls back
    const rows = await readAll();
    const outs: T[] = [];
    for (const [i, step] of steps.entries()) {
      outs.push(await step.work(m, rows[i][0], rows[i][1]));
    }
    for (const [write, items] of gathered) {
      await deferWrite(m, write.sql, write.params(items));
    }
    const [writes, names] = takeDeferred();
    await send(`${writes}COMMIT`, names);
    open = false;
    return outs;
  } catch (err) {
    if (open) {
      await client.query('ROLLBACK').catch((rollbackErr: Error) => {
        broken = rollbackErr;
      });
    }
    throw err;
  } finally {
    ended = true;
    client.release(broken);
  }
}
