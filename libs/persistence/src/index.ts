export * from './lib/entities';
export {
  createDataSource,
  dataSourceOptions,
  runMigrationsLocked,
  ensureDatabase,
  MIGRATIONS,
} from './lib/data-source';
export { PgStateSource, VersionGoneError } from './lib/pg-state.source';
export {
  FileStore,
  FileTooLargeError,
  type NewFile,
  type StoredFile,
  fileStoreFromEnv,
} from './lib/file-store';
export {
  FileObjectError,
  FileObjects,
  S3Clients,
  parseObjectKey,
  storeNotConfigured,
} from './lib/file-objects';
export { forkPoint, ForkPointError, type ForkPoint, type ForkPointProblem } from './lib/fork-point';
export { pooledSql, preparedQuery, statementName } from './lib/prepared-query';
export {
  type GatheredWrite,
  type Literal,
  type LockedWork,
  type PreparedLock,
  type StepSql,
  deferWrite,
  gatherWrite,
  withLockedRead,
  withLockedReads,
} from './lib/locked-read';
export { deleteThreads } from './lib/thread-deletion';
export { type TenantTokens, USAGE_WRITE } from './lib/model-usage';
export { writeSnapshot, compactHistory } from './lib/state-snapshots';
export {
  DataNotFoundError,
  EXTRACT_DATA_TOOL,
  type ExtractDataInput,
  extractData,
  extractDataInputSchema,
  pointerTokens,
} from './lib/tool-output-extract';
export {
  type Db,
  executePrepared,
  kyselyOf,
  kyselyOfManager,
  kyselyOnClient,
  kyselyTransaction,
} from './lib/kysely/kysely';
export type { DB } from './lib/kysely/db';
