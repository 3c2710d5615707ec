import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { hashApiKey, keyPrefix, newApiKey } from '../auth/api-key.util';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { type PatchTenant, PatchTenantSchema } from '../registry/registry.schemas';
import { TENANT_COLUMNS, type TenantRow, tenantView } from '../registry/registry.views';
import { RegistryChangedInterceptor } from '../registry/registry-changed.interceptor';
import { AdminTokenGuard } from './admin-token.guard';

export const CreateTenantSchema = z.object({ name: z.string().trim().min(1).max(200) }).strict();
export const CreateKeySchema = z
  .object({ label: z.string().max(200).optional() })
  .strict()
  .default({});
const IdSchema = z.string().uuid();

interface KeyRow {
  id: string;
  prefix: string;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

/** Tenants and their API keys. A key is shown once, when it is made; only its SHA-256 is kept. */
@Controller('v1/admin/tenants')
@UseGuards(AdminTokenGuard)
@UseInterceptors(RegistryChangedInterceptor)
export class TenantsController {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  @Post()
  async create(@Body(new ZodPipe(CreateTenantSchema)) body: z.infer<typeof CreateTenantSchema>) {
    const rows = (await this.ds.query(
      `INSERT INTO tenants (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING ${TENANT_COLUMNS}`,
      [body.name],
    )) as TenantRow[];
    if (rows.length === 0) {
      throw new ApiException(ApiErrorCode.Conflict, `a tenant named "${body.name}" exists`);
    }
    return tenantView(rows[0]);
  }

  @Get()
  async list() {
    const rows = (await this.ds.query(
      `SELECT ${TENANT_COLUMNS} FROM tenants ORDER BY created_at`,
    )) as TenantRow[];
    return { tenants: rows.map(tenantView) };
  }

  @Get(':tenant_id')
  async get(@Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string) {
    const [row] = (await this.ds.query(`SELECT ${TENANT_COLUMNS} FROM tenants WHERE id = $1`, [
      tenantId,
    ])) as TenantRow[];
    if (!row) {
      throw ApiException.notFound('tenant');
    }
    return tenantView(row);
  }

  /**
   * Sets the tenant's token budget (null = unlimited). Runs of a tenant whose tokens_used reached
   * the budget fail with `budget_exceeded` before their next model call.
   */
  @Patch(':tenant_id')
  async patch(
    @Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string,
    @Body(new ZodPipe(PatchTenantSchema)) body: PatchTenant,
  ) {
    return this.updateTenant(tenantId, 'token_budget = $2', [body.token_budget]);
  }

  /** Starts a new budget period: tokens_used back to 0 (model_usage keeps the history). */
  @Post(':tenant_id/usage/reset')
  @HttpCode(200)
  async resetUsage(@Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string) {
    return this.updateTenant(tenantId, 'tokens_used = 0', []);
  }

  @Post(':tenant_id/keys')
  async createKey(
    @Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string,
    @Body(new ZodPipe(CreateKeySchema)) body: z.infer<typeof CreateKeySchema>,
  ) {
    await this.tenant(tenantId);
    const key = newApiKey();
    const [row] = (await this.ds.query(
      `INSERT INTO api_keys (tenant_id, prefix, hash, label) VALUES ($1, $2, $3, $4)
       RETURNING id, prefix, label, created_at, revoked_at`,
      [tenantId, keyPrefix(key), hashApiKey(key), body.label ?? null],
    )) as KeyRow[];
    return { ...view(row), key };
  }

  @Get(':tenant_id/keys')
  async listKeys(@Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string) {
    await this.tenant(tenantId);
    const rows = (await this.ds.query(
      'SELECT id, prefix, label, created_at, revoked_at FROM api_keys WHERE tenant_id = $1 ORDER BY created_at',
      [tenantId],
    )) as KeyRow[];
    return { keys: rows.map(view) };
  }

  /** Revokes a key at once: authentication reads the key's row on every request. */
  @Delete(':tenant_id/keys/:key_id')
  @HttpCode(200)
  async revokeKey(
    @Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string,
    @Param('key_id', new ZodPipe(IdSchema)) keyId: string,
  ) {
    const [rows] = (await this.ds.query(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND tenant_id = $2
       RETURNING id, prefix, label, created_at, revoked_at`,
      [keyId, tenantId],
    )) as [KeyRow[], number];
    if (rows.length === 0) {
      throw ApiException.notFound('key');
    }
    return view(rows[0]);
  }

  private async updateTenant(tenantId: string, set: string, params: unknown[]) {
    const [rows] = (await this.ds.query(
      `UPDATE tenants SET ${set} WHERE id = $1 RETURNING ${TENANT_COLUMNS}`,
      [tenantId, ...params],
    )) as [TenantRow[], number];
    if (rows.length === 0) {
      throw ApiException.notFound('tenant');
    }
    return tenantView(rows[0]);
  }

  private async tenant(id: string): Promise<void> {
    const rows = (await this.ds.query('SELECT 1 FROM tenants WHERE id = $1', [id])) as unknown[];
    if (rows.length === 0) {
      throw ApiException.notFound('tenant');
    }
  }
}

function view(k: KeyRow) {
  return {
    id: k.id,
    prefix: k.prefix,
    label: k.label,
    created_at: new Date(k.created_at).toISOString(),
    revoked_at: k.revoked_at ? new Date(k.revoked_at).toISOString() : null,
  };
}
