import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Vendor keys bound to a business of a tenant (a business service's own id, passed by runs as
 * `metadata.business_id`): such a key serves only that business's calls, and every metered call
 * records the business it served, so one tenant can meter and limit its business lines apart.
 */
export class BusinessKeys1700000000025 implements MigrationInterface {
  name = 'BusinessKeys1700000000025';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE vendor_keys
        ADD COLUMN business_id text CHECK (business_id IS NULL OR length(business_id) BETWEEN 1 AND 200),
        ADD CONSTRAINT vendor_keys_business_needs_tenant CHECK (business_id IS NULL OR tenant_id IS NOT NULL);
      ALTER TABLE model_usage ADD COLUMN business_id text;
      CREATE INDEX model_usage_business_idx ON model_usage (tenant_id, business_id, created_at)
        WHERE business_id IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX model_usage_business_idx`);
    await q.query(`ALTER TABLE model_usage DROP COLUMN business_id`);
    await q.query(
      `ALTER TABLE vendor_keys DROP CONSTRAINT vendor_keys_business_needs_tenant, DROP COLUMN business_id`,
    );
  }
}
