import { Module } from '@nestjs/common';
import { ModelsController } from './models.controller';
import { RegistryChangedInterceptor } from './registry-changed.interceptor';
import { RegistryRepository } from './registry.repository';
import { UsageController } from './usage.controller';
import { VendorKeysController } from './vendor-keys.controller';
import { VendorsController } from './vendors.controller';

/** The model registry's admin API: vendors, endpoints, keys, models, metered usage. */
@Module({
  controllers: [VendorsController, VendorKeysController, ModelsController, UsageController],
  providers: [RegistryRepository, RegistryChangedInterceptor],
})
export class RegistryModule {}
