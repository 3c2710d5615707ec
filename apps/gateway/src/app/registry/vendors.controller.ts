import { Body, Controller, Get, Inject, Param, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { ZodPipe } from '../http/zod-body.pipe';
import {
  type CreateEndpoint,
  CreateEndpointSchema,
  type CreateVendor,
  CreateVendorSchema,
  IdSchema,
} from './registry.schemas';
import { endpointView, vendorView } from './registry.views';
import { RegistryChangedInterceptor } from './registry-changed.interceptor';
import { RegistryRepository } from './registry.repository';

/** Model vendors and their endpoints (admin token). Keys: VendorKeysController. */
@Controller('v1/admin/vendors')
@UseGuards(AdminTokenGuard)
@UseInterceptors(RegistryChangedInterceptor)
export class VendorsController {
  constructor(@Inject(RegistryRepository) private readonly registry: RegistryRepository) {}

  @Post()
  async create(@Body(new ZodPipe(CreateVendorSchema)) body: CreateVendor) {
    return vendorView(await this.registry.createVendor(body));
  }

  @Get()
  async list() {
    return { vendors: (await this.registry.vendors()).map(vendorView) };
  }

  @Get(':vendor_id')
  async get(@Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string) {
    return vendorView(await this.registry.vendorOrThrow(vendorId));
  }

  @Post(':vendor_id/endpoints')
  async createEndpoint(
    @Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string,
    @Body(new ZodPipe(CreateEndpointSchema)) body: CreateEndpoint,
  ) {
    return endpointView(await this.registry.createEndpoint(vendorId, body));
  }

  @Get(':vendor_id/endpoints')
  async listEndpoints(@Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string) {
    return { endpoints: (await this.registry.endpoints(vendorId)).map(endpointView) };
  }
}
