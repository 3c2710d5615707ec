import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { SecretBox } from '@switchyard/config';
import { type DataSourceOptions, DataSourceOptionsSchema, describeZodError } from '@switchyard/contracts';
import { ServiceConfig } from '@switchyard/platform';
import { ToolInputException } from '@switchyard/worker';
import { ToolExecutorConfig } from '../../app/tool-executor.config';
import { forbiddenAddressReason } from '@switchyard/net-guard';

/** A tenant's data source, DSN opened, ready to query. */
export interface ResolvedDataSource {
  id: string;
  name: string;
  options: DataSourceOptions;
  pool: pg.Pool;
}

interface PoolEntry {
  pool: pg.Pool;
  /** The sealed DSN the pool was made from: a changed row gets a new pool. */
  sealed: string;
  lastUsed: number;
}

// Small pools: a data source serves an agent's occasional queries, not a web app.
const POOL_MAX = 2;
const CLIENT_IDLE_MS = 10_000;
// A pool nobody used for this long is ended, and the entry dropped.
const POOL_IDLE_MS = 5 * 60_000;

/** Host, port and database of a postgres URL, for comparing two DSNs without their credentials. */
function target(dsn: string): { host: string; port: string; database: string } {
  const url = new URL(dsn);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase(),
    port: url.port || '5432',
    database: decodeURIComponent(url.pathname.slice(1)),
  };
}

/**
 * Finds a run's data source by name (the run's tenant owns it), checks where its DSN points, and
 * lends out a small per-data-source pool. The DSN is opened from its sealed form here only and
 * never logged or returned: messages name the data source, not its URL.
 */
@Injectable()
export class SqlDataSources implements OnModuleDestroy {
  private readonly logger = new Logger(SqlDataSources.name);
  private readonly pools = new Map<string, PoolEntry>();
  private readonly box: SecretBox;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(ToolExecutorConfig) private readonly config: ToolExecutorConfig,
    @Inject(ServiceConfig) private readonly service: ServiceConfig,
  ) {
    this.box = new SecretBox(config.secretKey);
    this.sweeper = setInterval(() => this.sweep(), 30_000).unref();
  }

  async resolve(runId: string, name: string): Promise<ResolvedDataSource> {
    const rows = (await this.ds.query(
      `SELECT d.id, d.name, d.dsn_sealed, d.options, d.kind
         FROM runs r JOIN data_sources d ON d.tenant_id = r.tenant_id
        WHERE r.id = $1
        ORDER BY d.name`,
      [runId],
    )) as { id: string; name: string; dsn_sealed: string; options: unknown; kind: string }[];
    const row = rows.find((r) => r.name === name);
    if (!row) {
      const known = rows.map((r) => r.name);
      throw new ToolInputException(
        `unknown data source "${name}"` +
          (known.length ? `; this tenant has: ${known.join(', ')}` : '; this tenant has none configured'),
        'sql_unknown_data_source',
      );
    }
    const options = DataSourceOptionsSchema.safeParse(row.options ?? {});
    if (!options.success) {
      throw new ToolInputException(
        `data source "${name}" has invalid options: ${describeZodError(options.error)}`,
        'sql_data_source_invalid',
      );
    }
    return { id: row.id, name: row.name, options: options.data, pool: await this.pool(row) };
  }

  private async pool(row: { id: string; name: string; dsn_sealed: string }): Promise<pg.Pool> {
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
      throw new ToolInputException(
        `data source "${row.name}" cannot be opened: ${(err as Error).message}`,
        'sql_data_source_invalid',
      );
    }
    await this.checkTarget(row.name, dsn);
    const pool = new pg.Pool({
      connectionString: dsn,
      max: POOL_MAX,
      idleTimeoutMillis: CLIENT_IDLE_MS,
      connectionTimeoutMillis: 5000,
      application_name: 'switchyard-sql_query',
      // Defence in depth: even a transaction opened without READ ONLY could not write.
      options: '-c default_transaction_read_only=on',
    });
    // An idle client whose server went away must not crash the service.
    pool.on('error', (err) =>
      this.logger.warn({ data_source: row.name, msg: `idle connection failed: ${err.message}` }),
    );
    this.pools.set(row.id, { pool, sealed: row.dsn_sealed, lastUsed: Date.now() });
    return pool;
  }

  /**
   * The same rule as the http tools: a host that is or resolves to a private, loopback or
   * link-local address only when the operator listed it (SWITCHYARD_SQL_ALLOW_HOSTS); and never
   * the platform's own database, whatever the allow-list says.
   */
  private async checkTarget(name: string, dsn: string): Promise<void> {
    const refuse = (why: string) =>
      new ToolInputException(`data source "${name}" refused: ${why}`, 'sql_data_source_forbidden');
    let url: URL;
    try {
      url = new URL(dsn);
    } catch {
      throw refuse('its DSN is not a valid postgres:// URL');
    }
    for (const param of ['host', 'hostaddr', 'options']) {
      if (url.searchParams.has(param)) {
        throw refuse(`the DSN parameter "${param}" is not supported`);
      }
    }
    const t = target(dsn);
    if (!t.host) {
      throw refuse('its DSN names no host');
    }
    const own = target(this.service.env.DATABASE_URL);
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
    if (this.config.sqlAllowHosts.includes(t.host)) {
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
      if (now - entry.lastUsed > POOL_IDLE_MS && entry.pool.totalCount === 0) {
        this.drop(id);
      }
    }
  }

  private drop(id: string): void {
    const entry = this.pools.get(id);
    this.pools.delete(id);
    void entry?.pool.end().catch(() => undefined);
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.pools.values()].map((e) => e.pool.end().catch(() => undefined)));
    this.pools.clear();
  }
}
