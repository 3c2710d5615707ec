import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import mysql from 'mysql2';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { SecretBox } from '@switchyard/config';
import { type DataSourceOptions, DataSourceOptionsSchema, describeZodError } from '@switchyard/contracts';
import { forbiddenAddressReason } from '@switchyard/net-guard';
import { type MysqlFlavour, mysqlQuery } from './mysql-query';
import type { SqlDialect } from './sql-guard';
import { type SqlLimits, type SqlParams, type SqlQueryResult, sqlQuery } from './sql-query';
import { SqlSourceError } from './sql-source.error';

/** Where data sources may point and how their DSNs are opened. */
export interface SqlDataSourcesOptions {
  /** SWITCHYARD_SECRET_KEY: the gateway sealed the DSNs with it. */
  secretKey: string;
  /** Hosts allowed although they are (or resolve to) private or loopback addresses (SWITCHYARD_SQL_ALLOW_HOSTS). */
  allowHosts: readonly string[];
  /** The platform's own database (DATABASE_URL), which no data source may point at. */
  ownDatabaseUrl: string;
  /** `application_name` of the connections (which service queries). */
  applicationName: string;
}

/** One connection lent out of a data source's pool: read-only queries, then back to the pool. */
export interface SqlSession {
  readonly dialect: SqlDialect;
  /** Checks the statement with the dialect's guard and runs it read-only under the limits. */
  query(args: { sql: string; params: SqlParams }, limits: SqlLimits): Promise<SqlQueryResult>;
  /** Back to the pool; `broken`: the connection failed and is thrown away instead. */
  release(broken?: boolean): void;
}

/** A data source's small pool, whatever the engine. */
interface SourcePool {
  readonly dialect: SqlDialect;
  connect(): Promise<SqlSession>;
  end(): Promise<void>;
  /** Connections lent out now (a pool with none may be ended). */
  busy(): number;
}

/** A tenant's data source, DSN opened, ready to query. */
export interface ResolvedDataSource {
  id: string;
  name: string;
  /** `postgres`, or `mysql` (MySQL, MariaDB, and OceanBase's MySQL mode). */
  kind: SqlDialect;
  options: DataSourceOptions;
  pool: SourcePool;
}

interface DataSourceRow {
  id: string;
  name: string;
  dsn_sealed: string;
  options: unknown;
  kind: string;
}

interface PoolEntry {
  pool: SourcePool;
  /** The sealed DSN the pool was made from: a changed row gets a new pool. */
  sealed: string;
  lastUsed: number;
}

// Small pools: a data source serves an agent's occasional queries, not a web app.
const POOL_MAX = 2;
const CLIENT_IDLE_MS = 10_000;
// A pool nobody used for this long is ended, and the entry dropped.
const POOL_IDLE_MS = 5 * 60_000;

/** The engine a DSN's scheme names: postgres:// and postgresql://, or mysql:// (MySQL, MariaDB). */
export function dsnDialect(dsn: string): SqlDialect | undefined {
  const scheme = /^([a-z]+):/i.exec(dsn)?.[1]?.toLowerCase();
  return scheme === 'postgres' || scheme === 'postgresql'
    ? 'postgres'
    : scheme === 'mysql'
      ? 'mysql'
      : undefined;
}

/** Host, port and database of a DSN, for comparing two DSNs without their credentials. */
function target(dsn: string): { host: string; port: string; database: string } {
  const url = new URL(dsn);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase(),
    port: url.port || (dsnDialect(dsn) === 'mysql' ? '3306' : '5432'),
    database: decodeURIComponent(url.pathname.slice(1)),
  };
}

/**
 * Finds a run's data source by name (the run's tenant owns it), checks where its DSN points, and
 * lends out a small per-data-source pool. The DSN is opened from its sealed form here only and
 * never logged or returned: messages name the data source, not its URL.
 */
export class SqlDataSources {
  private readonly logger = new Logger(SqlDataSources.name);
  private readonly pools = new Map<string, PoolEntry>();
  private readonly box: SecretBox;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly ds: DataSource,
    private readonly opts: SqlDataSourcesOptions,
  ) {
    this.box = new SecretBox(opts.secretKey);
    this.sweeper = setInterval(() => this.sweep(), 30_000).unref();
  }

  /** The tenant's data source of that name (the tenant a task works for: its `tenant_id`). */
  async resolve(tenantId: string, name: string): Promise<ResolvedDataSource> {
    const rows = await this.rowsOf(tenantId);
    const row = rows.find((r) => r.name === name);
    if (!row) {
      const known = rows.map((r) => r.name);
      throw new SqlSourceError(
        `unknown data source "${name}"` +
          (known.length ? `; this tenant has: ${known.join(', ')}` : '; this tenant has none configured'),
        'sql_unknown_data_source',
      );
    }
    return this.opened(row);
  }

  /**
   * The tenant's data source that points at `where` (host, port, database and user, as a
   * RAGFlow ExeSQL names them): the connection is the data source's own, sealed — the DSL's
   * password is never used — and goes through the same checks as `sql_query`'s.
   */
  async resolveTarget(
    tenantId: string,
    where: { kind: SqlDialect; host: string; port: number; database: string; username: string },
  ): Promise<ResolvedDataSource> {
    const rows = await this.rowsOf(tenantId);
    const wanted = {
      host: where.host.replace(/^\[(.*)\]$/, '$1').toLowerCase(),
      port: String(where.port),
      database: where.database,
      user: where.username,
    };
    for (const row of rows) {
      let dsn: string;
      try {
        dsn = this.box.open(row.dsn_sealed);
      } catch {
        continue;
      }
      const t = target(dsn);
      const user = decodeURIComponent(new URL(dsn).username);
      if (
        dsnDialect(dsn) === where.kind &&
        t.host === wanted.host &&
        t.port === wanted.port &&
        t.database === wanted.database &&
        user === wanted.user
      ) {
        return this.opened(row);
      }
    }
    throw new SqlSourceError(
      `no data source of this tenant points at ${where.kind}://${wanted.user}@${wanted.host}:${wanted.port}/${wanted.database}` +
        (rows.length ? ` (it has: ${rows.map((r) => r.name).join(', ')})` : ' (it has none configured)') +
        '; register one with POST /v1/data-sources — its credentials stay sealed there',
      'sql_unknown_data_source',
    );
  }

  /** A session of the source's pool; a refused or failed connection is an `sql_connection_error`. */
  async connect(source: ResolvedDataSource): Promise<SqlSession> {
    return source.pool.connect().catch((err: Error) => {
      throw new SqlSourceError(
        `cannot connect to data source "${source.name}": ${err.message}`,
        'sql_connection_error',
      );
    });
  }

  private async rowsOf(tenantId: string): Promise<DataSourceRow[]> {
    return (await this.ds.query(
      `SELECT id, name, dsn_sealed, options, kind FROM data_sources WHERE tenant_id = $1 ORDER BY name`,
      [tenantId],
    )) as DataSourceRow[];
  }

  private async opened(row: DataSourceRow): Promise<ResolvedDataSource> {
    const options = DataSourceOptionsSchema.safeParse(row.options ?? {});
    if (!options.success) {
      throw new SqlSourceError(
        `data source "${row.name}" has invalid options: ${describeZodError(options.error)}`,
        'sql_data_source_invalid',
      );
    }
    const pool = await this.pool(row);
    return { id: row.id, name: row.name, kind: pool.dialect, options: options.data, pool };
  }

  private async pool(row: { id: string; name: string; dsn_sealed: string }): Promise<SourcePool> {
    const cached = this.pools.get(row.id);
    if (cached && cached.sealed === row.dsn_sealed) {
      cached.lastUsed = Date.now();
      return cached.pool;
    }
    if (cached) {
      this.drop(row.id);
    }
    let dsn: string;
    try {
      dsn = this.box.open(row.dsn_sealed);
    } catch (err) {
      throw new SqlSourceError(
        `data source "${row.name}" cannot be opened: ${(err as Error).message}`,
        'sql_data_source_invalid',
      );
    }
    await this.checkTarget(row.name, dsn);
    const dialect = dsnDialect(dsn);
    const pool = dialect === 'mysql' ? this.mysqlPool(row.name, dsn) : this.pgPool(row.name, dsn);
    this.pools.set(row.id, { pool, sealed: row.dsn_sealed, lastUsed: Date.now() });
    return pool;
  }

  private pgPool(name: string, dsn: string): SourcePool {
    const pool = new pg.Pool({
      connectionString: dsn,
      max: POOL_MAX,
      idleTimeoutMillis: CLIENT_IDLE_MS,
      connectionTimeoutMillis: 5000,
      application_name: this.opts.applicationName,
      // Defence in depth: even a transaction opened without READ ONLY could not write.
      options: '-c default_transaction_read_only=on',
    });
    // An idle client whose server went away must not crash the service.
    pool.on('error', (err) =>
      this.logger.warn({ data_source: name, msg: `idle connection failed: ${err.message}` }),
    );
    return {
      dialect: 'postgres',
      connect: async () => {
        const client = await pool.connect();
        return {
          dialect: 'postgres',
          query: (args, limits) => sqlQuery(client, args, limits),
          release: (broken) => client.release(broken),
        };
      },
      end: () => pool.end(),
      busy: () => pool.totalCount - pool.idleCount,
    };
  }

  private mysqlPool(name: string, dsn: string): SourcePool {
    const url = new URL(dsn);
    const pool = mysql.createPool({
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.slice(1)),
      connectionLimit: POOL_MAX,
      maxIdle: POOL_MAX,
      idleTimeout: CLIENT_IDLE_MS,
      connectTimeout: 5000,
      // One statement per call, whatever the text says; dates as the server prints them.
      multipleStatements: false,
      dateStrings: true,
      decimalNumbers: true,
      supportBigNumbers: true,
      bigNumberStrings: false,
    });
    pool.on('connection', (conn) =>
      conn.on('error', (err) =>
        this.logger.warn({ data_source: name, msg: `idle connection failed: ${err.message}` }),
      ),
    );
    let flavour: Promise<MysqlFlavour> | undefined;
    let lent = 0;
    return {
      dialect: 'mysql',
      connect: async () => {
        const conn = await new Promise<mysql.PoolConnection>((resolve, reject) =>
          pool.getConnection((err, c) => (err ? reject(err) : resolve(c))),
        );
        flavour ??= new Promise<MysqlFlavour>((resolve) =>
          conn.query('SELECT VERSION() AS v', (err, rows) => {
            const v = err ? '' : String((rows as { v?: string }[])[0]?.v ?? '');
            resolve(/mariadb/i.test(v) ? 'mariadb' : 'mysql');
          }),
        );
        const kind = await flavour;
        let destroyed = false;
        lent++;
        return {
          dialect: 'mysql',
          query: async (args, limits) => {
            const res = await mysqlQuery(conn, kind, args, limits);
            destroyed ||= res.destroyed;
            const { destroyed: _gone, ...result } = res;
            return result;
          },
          release: (broken) => {
            lent--;
            if (broken || destroyed) {
              if (!destroyed) {
                conn.destroy();
              }
              // A destroyed connection leaves the pool by itself.
              return;
            }
            conn.release();
          },
        };
      },
      end: () => new Promise<void>((resolve) => pool.end(() => resolve())),
      busy: () => lent,
    };
  }

  /**
   * The same rule as the http tools: a host that is or resolves to a private, loopback or
   * link-local address only when the operator listed it (SWITCHYARD_SQL_ALLOW_HOSTS); and never
   * the platform's own database, whatever the allow-list says.
   */
  private async checkTarget(name: string, dsn: string): Promise<void> {
    const refuse = (why: string) =>
      new SqlSourceError(`data source "${name}" refused: ${why}`, 'sql_data_source_forbidden');
    let url: URL;
    try {
      url = new URL(dsn);
    } catch {
      throw refuse('its DSN is not a valid URL');
    }
    const dialect = dsnDialect(dsn);
    if (!dialect) {
      throw refuse('its DSN is neither a postgres:// nor a mysql:// URL');
    }
    // mysql: the pool is built from the URL's parts, so a parameter would be silently ignored.
    for (const param of dialect === 'mysql'
      ? [...url.searchParams.keys()]
      : ['host', 'hostaddr', 'options']) {
      if (url.searchParams.has(param)) {
        throw refuse(`the DSN parameter "${param}" is not supported`);
      }
    }
    const t = target(dsn);
    if (!t.host) {
      throw refuse('its DSN names no host');
    }
    const own = target(this.opts.ownDatabaseUrl);
    const addresses = isIP(t.host)
      ? [t.host]
      : (await dns.lookup(t.host, { all: true }).catch(() => [])).map((a) => a.address);
    if (addresses.length === 0) {
      throw refuse(`host ${t.host} does not resolve`);
    }
    const ownAddresses = isIP(own.host)
      ? [own.host]
      : (await dns.lookup(own.host, { all: true }).catch(() => [])).map((a) => a.address);
    if (
      t.port === own.port &&
      t.database === own.database &&
      (t.host === own.host || addresses.some((a) => ownAddresses.includes(a)))
    ) {
      throw refuse("it points at the platform's own database");
    }
    if (this.opts.allowHosts.includes(t.host)) {
      return;
    }
    for (const address of addresses) {
      const reason = forbiddenAddressReason(address);
      if (reason) {
        throw refuse(
          `host ${t.host}${address === t.host ? '' : ` resolves to ${address}, which`} is ${reason}; ` +
            'an operator can allow it with SWITCHYARD_SQL_ALLOW_HOSTS',
        );
      }
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, entry] of this.pools) {
      if (now - entry.lastUsed > POOL_IDLE_MS && entry.pool.busy() === 0) {
        this.drop(id);
      }
    }
  }

  private drop(id: string): void {
    const entry = this.pools.get(id);
    this.pools.delete(id);
    void entry?.pool.end().catch(() => undefined);
  }

  /** Ends every pool (on shutdown). */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.pools.values()].map((e) => e.pool.end().catch(() => undefined)));
    this.pools.clear();
  }
}

/** Ends the data sources' pools when the Nest application shuts down (list it with the provider). */
@Injectable()
export class SqlDataSourcesLifecycle implements OnModuleDestroy {
  constructor(@Inject(SqlDataSources) private readonly sources: SqlDataSources) {}

  onModuleDestroy(): Promise<void> {
    return this.sources.close();
  }
}
