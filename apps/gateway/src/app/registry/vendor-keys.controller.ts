import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { SecretBox } from '@switchyard/config';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { ZodPipe } from '../http/zod-body.pipe';
import { type CreateVendorKey, CreateVendorKeySchema, IdSchema } from './registry.schemas';
import { vendorKeyView } from './registry.views';
import { RegistryChangedInterceptor } from './registry-changed.interceptor';
import { RegistryRepository } from './registry.repository';

/**
 * A vendor's API keys (admin token). The secret is write-only: it is sealed (SecretBox,
 * AES-256-GCM) before it reaches a query, so neither SQL parameters in an error log nor any
 * response can carry it; keys are named by their fingerprint. A revoked key stays revoked; a key
 * the runtime quarantined (failing auth, exhausted quota) can be put back with `reactivate`.
 */
@Controller('v1/admin/vendors/:vendor_id/keys')
@UseGuards(AdminTokenGuard)
@UseInterceptors(RegistryChangedInterceptor)
export class VendorKeysController {
  constructor(
    @Inject(RegistryRepository) private readonly registry: RegistryRepository,
    @Inject(SecretBox) private readonly box: SecretBox,
  ) {}

  @Post()
  async create(
    @Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string,
    @Body(new ZodPipe(CreateVendorKeySchema)) body: CreateVendorKey,
  ) {
    const row = await this.registry.createVendorKey(vendorId, {
      label: body.label ?? null,
      tenantId: body.tenant_id ?? null,
      businessId: body.business_id ?? null,
      sealed: this.box.seal(body.secret),
      fingerprint: SecretBox.fingerprint(body.secret),
    });
    return vendorKeyView(row);
  }

  @Get()
  async list(@Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string) {
    return { keys: (await this.registry.vendorKeys(vendorId)).map(vendorKeyView) };
  }

  /** Revokes for good; every registry write applies to the next model call (docs/adr/0001). Idempotent. */
  @Delete(':key_id')
  @HttpCode(200)
  async revoke(
    @Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string,
    @Param('key_id', new ZodPipe(IdSchema)) keyId: string,
  ) {
    return vendorKeyView(await this.registry.revokeVendorKey(vendorId, keyId));
  }

  /** Puts a quarantined key back in service. A revoked key cannot come back: register it again. */
  @Post(':key_id/reactivate')
  @HttpCode(200)
  async reactivate(
    @Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string,
    @Param('key_id', new ZodPipe(IdSchema)) keyId: string,
  ) {
    return vendorKeyView(await this.registry.reactivateVendorKey(vendorId, keyId));
  }
}
