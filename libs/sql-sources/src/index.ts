export { SqlSourceError } from './lib/sql-source.error';
export { type CheckedSql, type SqlDialect, SqlGuardError, checkReadOnlySql } from './lib/sql-guard';
export { type MysqlFlavour, mysqlError, mysqlQuery, runReadOnlyMysql } from './lib/mysql-query';
export {
  type ResolvedDataSource,
  SqlDataSources,
  type SqlSession,
  dsnDialect,
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
