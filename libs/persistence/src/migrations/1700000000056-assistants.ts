import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * LangGraph assistants made through the API: an assistant is an agent configured from another
 * one (`graph_id`: the name of the agent it was made from; NULL: its own name), with the
 * `metadata` and `description` search and views show, and the version runs use when one was
 * chosen (`latest_version`, set by `POST /assistants/{id}/latest`; NULL: its newest). Each
 * version keeps the assistant's fields as they were given (`assistant`: graph_id, config,
 * context, metadata, name, description), so a version's view — and setting it latest — gives
 * them back.
 */
export class Assistants1700000000056 implements MigrationInterface {
  name = 'Assistants1700000000056';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE agents
        ADD COLUMN graph_id text,
        ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}',
        ADD COLUMN description text,
        ADD COLUMN latest_version integer;
      ALTER TABLE agent_versions ADD COLUMN assistant jsonb;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE agent_versions DROP COLUMN assistant;
      ALTER TABLE agents DROP COLUMN graph_id, DROP COLUMN metadata, DROP COLUMN description,
        DROP COLUMN latest_version;
    `);
  }
}
