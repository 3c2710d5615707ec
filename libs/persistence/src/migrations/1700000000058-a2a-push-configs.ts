import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A2A push notifications: a client asks to be told of a task's (a run's) changes at a URL. Each
 * config remembers the last state it was told (`sent_state`); the gateway's delivery job POSTs the
 * task whenever the run's state differs, with back-off on failure. The token and the
 * authentication's credentials are sealed (SecretBox). A config goes with its run.
 */
export class A2aPushConfigs1700000000058 implements MigrationInterface {
  name = 'A2aPushConfigs1700000000058';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE a2a_push_configs (
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        id text NOT NULL,
        tenant_id uuid NOT NULL,
        url text NOT NULL,
        token text,
        auth_scheme text,
        auth_credentials text,
        sent_state text,
        attempts integer NOT NULL DEFAULT 0,
        next_at timestamptz NOT NULL DEFAULT now(),
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (run_id, id)
      );
      CREATE INDEX a2a_push_configs_due_idx ON a2a_push_configs (next_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE a2a_push_configs`);
  }
}
