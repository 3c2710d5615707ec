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
import { DataSource } from 'typeorm';
import { SecretBox } from '@switchyard/config';
import { AdminTokenGuard } from '../admin/admin-token.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { type CreateVendorKey, CreateVendorKeySchema, IdSchema } from './registry.schemas';
import { VENDOR_KEY_COLUMNS, type VendorKeyRow, vendorKeyView } from './registry.views';
import { vendorOrThrow } from './vendors.controller';
import { RegistryChangedInterceptor } from './registry-changed.interceptor';

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
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(SecretBox) private readonly box: SecretBox,
  ) {}

  @Post()
  async create(
    @Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string,
    @Body(new ZodPipe(CreateVendorKeySchema)) body: CreateVendorKey,
  ) {
    const sealed = this.box.seal(body.secret);
    const fingerprint = SecretBox.fingerprint(body.secret);
    const tenantId = body.tenant_id ?? null;
    const businessId = body.business_id ?? null;
    return this.ds.transaction(async (m) => {
      await vendorOrThrow(m, vendorId, { forUpdate: true });
      if (tenantId) {
        const [tenant] = (await m.query('SELECT id FROM tenants WHERE id = $1', [tenantId])) as unknown[];
        if (!tenant) {
          throw ApiException.notFound('tenant');
        }
      }
      const [dup] = (await m.query(
        `SELECT id FROM vendor_keys
         WHERE vendor_id = $1 AND fingerprint = $2 AND tenant_id IS NOT DISTINCT FROM $3
           AND business_id IS NOT DISTINCT FROM $4 AND status <> 'revoked'`,
        [vendorId, fingerprint, tenantId, businessId],
      )) as { id: string }[];
      if (dup) {
        throw new ApiException(
          ApiErrorCode.Conflict,
          `this key (fingerprint ${fingerprint}) is registered for the vendor already: ${dup.id}`,
        );
      }
      const [row] = (await m.query(
        `INSERT INTO vendor_keys (vendor_id, label, tenant_id, business_id, secret_sealed, fingerprint)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${VENDOR_KEY_COLUMNS}`,
        [vendorId, body.label ?? null, tenantId, businessId, sealed, fingerprint],
      )) as VendorKeyRow[];
      return vendorKeyView(row);
    });
  }

  @Get()
  async list(@Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string) {
    await vendorOrThrow(this.ds, vendorId);
    const rows = (await this.ds.query(
      `SELECT ${VENDOR_KEY_COLUMNS} FROM vendor_keys WHERE vendor_id = $1 ORDER BY created_at, id`,
      [vendorId],
    )) as VendorKeyRow[];
    return { keys: rows.map(vendorKeyView) };
  }

  /** Revokes for good; services stop using the key once their registry cache (SWITCHYARD_MODEL_REGISTRY_TTL_MS) turns over. Idempotent. */
  @Delete(':key_id')
  @HttpCode(200)
  async revoke(
    @Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string,
    @Param('key_id', new ZodPipe(IdSchema)) keyId: string,
  ) {
    const [rows] = (await this.ds.query(
      `UPDATE vendor_keys
       SET status = 'revoked',
           status_reason = CASE WHEN status = 'revoked' THEN status_reason ELSE 'revoked by an admin' END,
           updated_at = CASE WHEN status = 'revoked' THEN updated_at ELSE now() END
       WHERE id = $1 AND vendor_id = $2 RETURNING ${VENDOR_KEY_COLUMNS}`,
      [keyId, vendorId],
    )) as [VendorKeyRow[], number];
    if (rows.length === 0) {
      throw ApiException.notFound('key');
    }
    return vendorKeyView(rows[0]);
  }

  /** Puts a quarantined key back in service. A revoked key cannot come back: register it again. */
  @Post(':key_id/reactivate')
  @HttpCode(200)
  async reactivate(
    @Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string,
    @Param('key_id', new ZodPipe(IdSchema)) keyId: string,
  ) {
    const [rows] = (await this.ds.query(
      `UPDATE vendor_keys SET status = 'active', status_reason = NULL, updated_at = now()
       WHERE id = $1 AND vendor_id = $2 AND status = 'quarantined' RETURNING ${VENDOR_KEY_COLUMNS}`,
      [keyId, vendorId],
    )) as [VendorKeyRow[], number];
    if (rows.length > 0) {
      return vendorKeyView(rows[0]);
    }
    const [key] = (await this.ds.query(
      `SELECT ${VENDOR_KEY_COLUMNS} FROM vendor_keys WHERE id = $1 AND vendor_id = $2`,
      [keyId, vendorId],
    )) as VendorKeyRow[];
    if (!key) {
      throw ApiException.notFound('key');
    }
    if (key.status === 'revoked') {
      throw new ApiException(
        ApiErrorCode.Conflict,
        'the key is revoked; a revoked key is not reactivated (register the secret again)',
      );
    }
    return vendorKeyView(key); // already active
  }
}
