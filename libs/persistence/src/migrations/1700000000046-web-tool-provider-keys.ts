import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Provider keys for RAGFlow's keyed web tools (libs/provider-tools PROVIDERS). */
export class WebToolProviderKeys1700000000046 implements MigrationInterface {
  name = 'WebToolProviderKeys1700000000046';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE provider_keys DROP CONSTRAINT provider_keys_provider_check`);
    await q.query(
      `ALTER TABLE provider_keys ADD CONSTRAINT provider_keys_provider_check CHECK (provider IN (
         'tavily', 'yahoo_finance', 'serpapi', 'qweather', 'deepl', 'baidu_fanyi', 'tushare', 'jin10', 'github', 'smtp'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM provider_keys WHERE provider NOT IN ('tavily', 'yahoo_finance')`);
    await q.query(`ALTER TABLE provider_keys DROP CONSTRAINT provider_keys_provider_check`);
    await q.query(
      `ALTER TABLE provider_keys ADD CONSTRAINT provider_keys_provider_check CHECK (provider IN ('tavily', 'yahoo_finance'))`,
    );
  }
}
