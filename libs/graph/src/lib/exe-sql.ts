/**
 * RAGFlow ExeSQL's `db_type`s that run here, and the data source engine each queries: MySQL
 * (RAGFlow's default), MariaDB and OceanBase's MySQL mode through the MySQL path,
 * PostgreSQL through its own. RAGFlow's mssql, trino and db2 cannot be tested here and are
 * refused on save.
 */
export const EXESQL_DB_TYPES = ['mysql', 'mariadb', 'oceanbase', 'postgres'] as const;

/** The data source engine an ExeSQL `db_type` (default mysql) queries, or undefined. */
export function exeSqlDialect(dbType: unknown): 'mysql' | 'postgres' | undefined {
  const t = dbType === undefined || dbType === null || dbType === '' ? 'mysql' : String(dbType);
  return t === 'postgres'
    ? 'postgres'
    : t === 'mysql' || t === 'mariadb' || t === 'oceanbase'
      ? 'mysql'
      : undefined;
}
