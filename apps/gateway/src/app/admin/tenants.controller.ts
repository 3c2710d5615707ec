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
import { z } from 'zod';
import {
  type ApiKeyView,
  type CreatedApiKeyView,
  CreateKeySchema,
  CreateTenantSchema,
  DEFAULT_EMBEDDING_MODEL,
  type TenantView,
} from '@switchyard/contracts';
import { ApiException } from '../http/api.exception';
import { hashApiKey, keyPrefix, newApiKey } from '../auth/api-key.util';
import { ZodPipe } from '../http/zod-body.pipe';
import { type PatchTenant, PatchTenantSchema } from '../registry/registry.schemas';
import { tenantView } from '../registry/registry.views';
import { RegistryChangedInterceptor } from '../registry/registry-changed.interceptor';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { AdminRepository } from './admin.repository';
import { apiKeyView, createdApiKeyView } from './admin.views';

const IdSchema = z.string().uuid();

/** Tenants and their API keys. A key is shown once, when it is made; only its SHA-256 is kept. */
@Controller('v1/admin/tenants')
@UseGuards(AdminTokenGuard)
@UseInterceptors(RegistryChangedInterceptor)
export class TenantsController {
  constructor(@Inject(AdminRepository) private readonly admin: AdminRepository) {}

  @Post()
  async create(
    @Body(new ZodPipe(CreateTenantSchema)) body: z.infer<typeof CreateTenantSchema>,
  ): Promise<TenantView> {
    return tenantView(await this.admin.createTenant(body.name));
  }

  @Get()
  async list() {
    return { tenants: (await this.admin.tenants()).map(tenantView) };
  }

  @Get(':tenant_id')
  async get(@Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string) {
    return tenantView(await this.admin.tenantOrThrow(tenantId));
  }

  /**
   * Sets the tenant's token budget (null = unlimited; runs of a tenant whose tokens_used reached
   * it fail with `budget_exceeded` before their next model call) and its own limits (null = the
   * defaults): request rate and burst, active runs, runs running at once; and its weight, its
   * share of the node services' handler slots against other busy tenants (null = 1).
   */
  @Patch(':tenant_id')
  async patch(
    @Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string,
    @Body(new ZodPipe(PatchTenantSchema)) body: PatchTenant,
  ) {
    const memoryModel = body.memory_embedding_model;
    if (
      memoryModel &&
      memoryModel !== DEFAULT_EMBEDDING_MODEL &&
      !(await this.admin.isEmbeddingModel(memoryModel))
    ) {
      throw ApiException.invalidField(
        'memory_embedding_model',
        `"${memoryModel}" is neither ${DEFAULT_EMBEDDING_MODEL} nor a registry model of category embedding`,
      );
    }
    return tenantView(await this.admin.patchTenant(tenantId, body));
  }

  /** Starts a new budget period: tokens_used back to 0 (model_usage keeps the history). */
  @Post(':tenant_id/usage/reset')
  @HttpCode(200)
  async resetUsage(@Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string) {
    return tenantView(await this.admin.resetUsage(tenantId));
  }

  @Post(':tenant_id/keys')
  async createKey(
    @Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string,
    @Body(new ZodPipe(CreateKeySchema)) body: z.infer<typeof CreateKeySchema>,
  ): Promise<CreatedApiKeyView> {
    const key = newApiKey();
    const row = await this.admin.createKey(tenantId, {
      prefix: keyPrefix(key),
      hash: hashApiKey(key),
      label: body.label ?? null,
    });
    return createdApiKeyView(row, key);
  }

  @Get(':tenant_id/keys')
  async listKeys(@Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string) {
    return { keys: (await this.admin.keys(tenantId)).map(apiKeyView) };
  }

  /** Revokes a key at once: authentication reads the key's row on every request. */
  @Delete(':tenant_id/keys/:key_id')
  @HttpCode(200)
  async revokeKey(
    @Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string,
    @Param('key_id', new ZodPipe(IdSchema)) keyId: string,
  ): Promise<ApiKeyView> {
    return apiKeyView(await this.admin.revokeKey(tenantId, keyId));
  }
}
