import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { GatewayConfig } from '../gateway.config';
import { hashApiKey, keyPrefix } from './api-key.util';
import { AuthRepository } from './auth.repository';

/** With `SWITCHYARD_BOOTSTRAP_KEY` set, tenant `default` exists and accepts that key. */
@Injectable()
export class BootstrapTenant implements OnApplicationBootstrap {
  private readonly logger = new Logger(BootstrapTenant.name);

  private readonly tenants: AuthRepository;

  constructor(
    @Inject(DataSource) ds: DataSource,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
  ) {
    this.tenants = new AuthRepository(ds);
  }

  async onApplicationBootstrap(): Promise<void> {
    const key = this.config.bootstrapKey;
    if (!key) {
      return;
    }
    await this.tenants.ensureDefaultTenantKey(keyPrefix(key), hashApiKey(key));
    this.logger.log({ msg: 'bootstrap tenant ready', tenant: 'default', key_prefix: keyPrefix(key) });
  }
}
