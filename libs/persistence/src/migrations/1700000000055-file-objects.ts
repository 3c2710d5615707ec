import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A file's bytes may live in an object store (`SWITCHYARD_FILE_STORE`): then `files.object_key`
 * names the object and `content` is null — exactly one of the two is set. However a row goes
 * (deleted through the API, with its run's thread, its tenant, or pruned with the run's outputs),
 * a trigger records its object in `file_objects_gone` in the same transaction; the gateway's sweep
 * deletes those objects and their rows. So no cascade leaves an object behind, and an object is
 * never deleted for a row that did not go.
 */
export class FileObjects1700000000055 implements MigrationInterface {
  name = 'FileObjects1700000000055';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE files ALTER COLUMN content DROP NOT NULL;
      ALTER TABLE files ADD COLUMN object_key text;
      ALTER TABLE files ADD CONSTRAINT files_content_xor_object
        CHECK ((content IS NULL) <> (object_key IS NULL));
      CREATE INDEX files_object_key_idx ON files (object_key) WHERE object_key IS NOT NULL;
      CREATE TABLE file_objects_gone (
        object_key text PRIMARY KEY,
        gone_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE FUNCTION files_object_gone() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO file_objects_gone (object_key) VALUES (OLD.object_key) ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$;
      CREATE TRIGGER files_object_gone AFTER DELETE ON files
        FOR EACH ROW WHEN (OLD.object_key IS NOT NULL) EXECUTE FUNCTION files_object_gone();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER files_object_gone ON files;
      DROP FUNCTION files_object_gone();
      DROP TABLE file_objects_gone;
      ALTER TABLE files DROP CONSTRAINT files_content_xor_object;
      ALTER TABLE files DROP COLUMN object_key;
      ALTER TABLE files ALTER COLUMN content SET NOT NULL;
    `);
  }
}
