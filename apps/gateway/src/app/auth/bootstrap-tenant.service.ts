import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { GatewayConfig } from '../gateway.config';
import { hashApiKey, keyPrefix } from './api-key.util';

/** With `SWITCHYARD_BOOTSTRAP_KEY` set, tenant `default` exists and accepts that key. */
@Injectable()
export class BootstrapTenant implements OnApplicationBootstrap {
  private readonly logger = new Logger(BootstrapTenant.name);

  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const key = this.config.bootstrapKey;
    if (!key) {
      return;
    }
    await this.ds.transaction(async (m) => {
      await m.query(`INSERT INTO tenants (name) VALUES ('default') ON CONFLICT (name) DO NOTHING`);
      const [tenant] = (await m.query(`SELECT id FROM tenants WHERE name = 'default'`)) as { id: string }[];
      await m.query(
        `INSERT INTO api_keys (tenant_id, prefix, hash, label) VALUES ($1, $2, $3, 'bootstrap') ON CONFLICT (hash) DO NOTHING`,
        [tenant.id, keyPrefix(key), hashApiKey(key)],
      );
    });
    this.logger.log({ msg: 'bootstrap tenant ready', tenant: 'default', key_prefix: keyPrefix(key) });
  }
}
