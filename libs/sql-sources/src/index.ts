export { SqlSourceError } from './lib/sql-source.error';
export { type CheckedSql, SqlGuardError, checkReadOnlySql } from './lib/sql-guard';
export {
  type ResolvedDataSource,
  SqlDataSources,
  SqlDataSourcesLifecycle,
  type SqlDataSourcesOptions,
} from './lib/sql-data-sources';
export {
  type SqlLimits,
  type SqlParams,
  SqlQueryError,
  type SqlQueryResult,
  limitedSql,
  runReadOnly,
  shapeResult,
  sqlError,
  sqlQuery,
} from './lib/sql-query';
