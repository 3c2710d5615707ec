import type { MigrationInterface, QueryRunner } from 'typeorm';

// The tables whose rows the services cache as the model registry.
const TABLES = ['vendors', 'vendor_keys', 'vendor_endpoints', 'models'];

/**
 * A revision of the model registry, bumped in the same transaction as every write to its tables
 * (and to a tenant's token budget): a service compares it with the revision of its cached copy
 * before each call, so a change (a revoked key, a new model) is seen by every call that starts
 * after the write committed, whichever process made it.
 */
export class RegistryRevision1700000000028 implements MigrationInterface {
  name = 'RegistryRevision1700000000028';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE registry_revision (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        revision bigint NOT NULL DEFAULT 1
      );
      INSERT INTO registry_revision DEFAULT VALUES;
      CREATE FUNCTION bump_registry_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE registry_revision SET revision = revision + 1;
        RETURN NULL;
      END $$;
    `);
    for (const table of TABLES) {
      await q.query(`
        CREATE TRIGGER ${table}_registry_revision
          AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
          FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_revision()
      `);
    }
    // Not tokens_used: every metered call updates that one.
    await q.query(`
      CREATE TRIGGER tenants_budget_registry_revision
        AFTER UPDATE OF token_budget ON tenants
        FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_revision()
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER tenants_budget_registry_revision ON tenants`);
    for (const table of TABLES) {
      await q.query(`DROP TRIGGER ${table}_registry_revision ON ${table}`);
    }
    await q.query(`DROP FUNCTION bump_registry_revision(); DROP TABLE registry_revision`);
  }
}
