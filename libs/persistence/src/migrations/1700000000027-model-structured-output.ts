import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How a model returns structured replies (intake, the plan, reflection verdicts…): `json_schema`
 * (response_format / Ollama `format`), `tool_call` (a forced tool call) or `prompt` (JSON asked for
 * in the prompt text). NULL = the default of the vendor's kind (openai/ollama: json_schema,
 * anthropic: tool_call), so existing models switch to the native mechanism.
 */
export class ModelStructuredOutput1700000000027 implements MigrationInterface {
  name = 'ModelStructuredOutput1700000000027';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE models ADD COLUMN structured_output text
        CHECK (structured_output IN ('json_schema', 'tool_call', 'prompt'))
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE models DROP COLUMN structured_output`);
  }
}
