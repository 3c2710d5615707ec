import { Module } from '@nestjs/common';
import { RegistryChangedInterceptor } from '../registry/registry-changed.interceptor';
import { AdminRepository } from './admin.repository';
import { ProviderKeysController } from './provider-keys.controller';
import { TenantsController } from './tenants.controller';

/** The admin API's tenants, their API keys and provider keys (admin token). */
@Module({
  controllers: [TenantsController, ProviderKeysController],
  providers: [AdminRepository, RegistryChangedInterceptor],
})
export class AdminModule {}
