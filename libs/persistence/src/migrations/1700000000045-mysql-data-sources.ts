import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Data sources may be MySQL (MySQL, MariaDB, OceanBase's MySQL mode) as well as PostgreSQL: the
 * engine RAGFlow's ExeSQL queries by default, and sql_query's second dialect.
 */
export class MysqlDataSources1700000000045 implements MigrationInterface {
  name = 'MysqlDataSources1700000000045';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE data_sources DROP CONSTRAINT data_sources_kind_check`);
    await q.query(
      `ALTER TABLE data_sources ADD CONSTRAINT data_sources_kind_check CHECK (kind IN ('postgres', 'mysql'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM data_sources WHERE kind = 'mysql'`);
    await q.query(`ALTER TABLE data_sources DROP CONSTRAINT data_sources_kind_check`);
    await q.query(
      `ALTER TABLE data_sources ADD CONSTRAINT data_sources_kind_check CHECK (kind IN ('postgres'))`,
    );
  }
}
