import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OpenAI's Responses API (`/v1/responses`) keeps what a response was asked and what it answered:
 * `previous_response_id` continues the response's thread, `GET /v1/responses/:id` reads it back
 * (while the run works, the answer is read from the run), and a continuation of a run paused on
 * client functions is a response of its own. A response goes with its run (and so with its
 * thread and tenant).
 */
export class OpenAiResponses1700000000057 implements MigrationInterface {
  name = 'OpenAiResponses1700000000057';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE openai_responses (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        thread_id uuid NOT NULL,
        previous_response_id uuid,
        model text NOT NULL,
        request jsonb NOT NULL,
        input jsonb NOT NULL,
        cursor text NOT NULL,
        answered text[] NOT NULL DEFAULT '{}',
        usage_before jsonb NOT NULL,
        response jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX openai_responses_run_idx ON openai_responses (run_id);
      CREATE INDEX openai_responses_tenant_idx ON openai_responses (tenant_id, created_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE openai_responses`);
  }
}
