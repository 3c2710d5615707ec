import pg from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { InitialSchema1700000000000 } from '../migrations/1700000000000-initial-schema';
import { ThreadSnapshotVersion1700000000001 } from '../migrations/1700000000001-thread-snapshot-version';
import { ActiveRunsIndex1700000000002 } from '../migrations/1700000000002-active-runs-index';
import { RunWaiting1700000000003 } from '../migrations/1700000000003-run-waiting';
import { Agents1700000000004 } from '../migrations/1700000000004-agents';
import { Knowledge1700000000010 } from '../migrations/1700000000010-knowledge';
import { ModelRegistry1700000000020 } from '../migrations/1700000000020-model-registry';
import { UserProfiles1700000000021 } from '../migrations/1700000000021-user-profiles';
import { DataSources1700000000022 } from '../migrations/1700000000022-data-sources';
import { McpServers1700000000023 } from '../migrations/1700000000023-mcp-servers';
import { Memory1700000000024 } from '../migrations/1700000000024-memory';
import { BusinessKeys1700000000025 } from '../migrations/1700000000025-business-keys';
import { MemoriesNoHnsw1700000000026 } from '../migrations/1700000000026-memories-no-hnsw';
import { ModelStructuredOutput1700000000027 } from '../migrations/1700000000027-model-structured-output';
import { RegistryRevision1700000000028 } from '../migrations/1700000000028-registry-revision';
import { ProviderKeys1700000000029 } from '../migrations/1700000000029-provider-keys';
import { ThreadMetadata1700000000034 } from '../migrations/1700000000034-thread-metadata';
import { FairDispatch1700000000042 } from '../migrations/1700000000042-fair-dispatch';
import { LogKeepsKeyOrder1700000000043 } from '../migrations/1700000000043-log-keeps-key-order';
import { ThreadsListIndex1700000000047 } from '../migrations/1700000000047-threads-list-index';
import { RunStreamModes1700000000048 } from '../migrations/1700000000048-run-stream-modes';
import { StatelessThreads1700000000049 } from '../migrations/1700000000049-stateless-threads';
import { StoreItems1700000000050 } from '../migrations/1700000000050-store-items';
import { Webhooks1700000000051 } from '../migrations/1700000000051-webhooks';
import { DelayedRuns1700000000052 } from '../migrations/1700000000052-delayed-runs';
import { Crons1700000000053 } from '../migrations/1700000000053-crons';
import { NodeTimeouts1700000000054 } from '../migrations/1700000000054-node-timeouts';
import { FileObjects1700000000055 } from '../migrations/1700000000055-file-objects';
import { Assistants1700000000056 } from '../migrations/1700000000056-assistants';
import { OpenAiResponses1700000000057 } from '../migrations/1700000000057-openai-responses';
import { A2aPushConfigs1700000000058 } from '../migrations/1700000000058-a2a-push-configs';
import { ModelUsageCallId1700000000059 } from '../migrations/1700000000059-model-usage-call-id';
import { WebToolProviderKeys1700000000046 } from '../migrations/1700000000046-web-tool-provider-keys';
import { MysqlDataSources1700000000045 } from '../migrations/1700000000045-mysql-data-sources';
import { TenantRunSlots1700000000044 } from '../migrations/1700000000044-tenant-run-slots';
import { ToolReceipts1700000000035 } from '../migrations/1700000000035-tool-receipts';
import { RunsFinishedIndex1700000000036 } from '../migrations/1700000000036-runs-finished-index';
import { TaskTraceParent1700000000030 } from '../migrations/1700000000030-task-trace-parent';
import { TenantLimits1700000000031 } from '../migrations/1700000000031-tenant-limits';
import { McpToolTypes1700000000037 } from '../migrations/1700000000037-mcp-tool-types';
import { TenantMemoryModel1700000000038 } from '../migrations/1700000000038-tenant-memory-model';
import { Files1700000000039 } from '../migrations/1700000000039-files';
import { RunsListIndex1700000000040 } from '../migrations/1700000000040-runs-list-index';
import { RunsTraceParent1700000000041 } from '../migrations/1700000000041-runs-trace-parent';
import { ENTITIES } from './entities';

export const MIGRATIONS = [
  InitialSchema1700000000000,
  ThreadSnapshotVersion1700000000001,
  ActiveRunsIndex1700000000002,
  RunWaiting1700000000003,
  Agents1700000000004,
  Knowledge1700000000010,
  ModelRegistry1700000000020,
  UserProfiles1700000000021,
  DataSources1700000000022,
  McpServers1700000000023,
  Memory1700000000024,
  BusinessKeys1700000000025,
  MemoriesNoHnsw1700000000026,
  ModelStructuredOutput1700000000027,
  RegistryRevision1700000000028,
  ProviderKeys1700000000029,
  ThreadMetadata1700000000034,
  ToolReceipts1700000000035,
  RunsFinishedIndex1700000000036,
  TaskTraceParent1700000000030,
  TenantLimits1700000000031,
  McpToolTypes1700000000037,
  TenantMemoryModel1700000000038,
  Files1700000000039,
  RunsListIndex1700000000040,
  RunsTraceParent1700000000041,
  FairDispatch1700000000042,
  LogKeepsKeyOrder1700000000043,
  TenantRunSlots1700000000044,
  MysqlDataSources1700000000045,
  WebToolProviderKeys1700000000046,
  ThreadsListIndex1700000000047,
  RunStreamModes1700000000048,
  StatelessThreads1700000000049,
  StoreItems1700000000050,
  Webhooks1700000000051,
  DelayedRuns1700000000052,
  Crons1700000000053,
  NodeTimeouts1700000000054,
  FileObjects1700000000055,
  Assistants1700000000056,
  OpenAiResponses1700000000057,
  A2aPushConfigs1700000000058,
  ModelUsageCallId1700000000059,
];

export function dataSourceOptions(
  databaseUrl: string,
  opts: { poolSize?: number; name?: string } = {},
): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    // Passed explicitly: TypeORM requires `pg` dynamically, which bundlers and dist package.json miss.
    driver: pg,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    synchronize: false,
    logging: false,
    poolSize: opts.poolSize ?? 10,
    applicationName: opts.name ?? 'switchyard',
    extra: { connectionTimeoutMillis: 5000 },
  };
}

export async function createDataSource(
  databaseUrl: string,
  opts: { poolSize?: number; name?: string; onConnectionError?: (err: Error) => void } = {},
): Promise<DataSource> {
  const ds = new DataSource(dataSourceOptions(databaseUrl, opts));
  await ds.initialize();
  guardCheckedOutClients(ds, opts.onConnectionError ?? (() => undefined));
  return ds;
}

/**
 * A connection Postgres terminates while the pool has lent it out (between two statements of a
 * transaction, say) emits 'error' on a client nobody listens to, which crashes the process. The
 * pool discards such a client and the statement that uses it fails and is retried; here the
 * event itself only gets reported.
 */
function guardCheckedOutClients(ds: DataSource, onError: (err: Error) => void): void {
  const pool = (ds.driver as unknown as { master?: pg.Pool }).master;
  const guarded = new WeakSet<pg.PoolClient>();
  pool?.on('acquire', (client) => {
    if (!guarded.has(client)) {
      guarded.add(client);
      client.on('error', onError);
    }
  });
}

// Any constant; every process that migrates takes the same advisory lock, so replicas starting
// together run the migrations once.
const MIGRATION_LOCK = 727_274_001;

/** Applies pending migrations under a Postgres advisory lock. Returns the names applied. */
export async function runMigrationsLocked(ds: DataSource): Promise<string[]> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}

/** Creates the database named in the URL when it does not exist (dev and CI convenience). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
        // 42P04: created concurrently by another process.
        if (err.code !== '42P04') {
          throw err;
        }
      });
    }
  } finally {
    await client.end();
  }
}
