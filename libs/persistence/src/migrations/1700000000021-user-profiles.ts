import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A tenant's users' profiles (seed 003: `user_context` is loaded from the user's profile once per
 * thread) and the thread's title (written once, when the first answer is committed).
 * `user_id` is the business service's own id for its user: text, unique per tenant.
 */
export class UserProfiles1700000000021 implements MigrationInterface {
  name = 'UserProfiles1700000000021';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE user_profiles (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        user_id text NOT NULL CHECK (length(user_id) BETWEEN 1 AND 200),
        profile jsonb NOT NULL CHECK (jsonb_typeof(profile) = 'object'),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, user_id)
      );
      ALTER TABLE threads ADD COLUMN title text;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE threads DROP COLUMN title`);
    await q.query(`DROP TABLE user_profiles`);
  }
}
