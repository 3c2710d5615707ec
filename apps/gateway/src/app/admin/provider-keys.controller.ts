import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { SecretBox } from '@switchyard/config';
import { PROVIDERS, type Provider } from '@switchyard/provider-tools';
import { ZodPipe } from '../http/zod-body.pipe';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { AdminRepository, type ProviderKeyRow } from './admin.repository';

const IdSchema = z.string().uuid();
export const ProviderSchema = z.enum(PROVIDERS);
export const SetProviderKeySchema = z.object({ secret: z.string().trim().min(1).max(4096) }).strict();

const view = (r: ProviderKeyRow) => ({
  id: r.id,
  tenant_id: r.tenant_id,
  provider: r.provider,
  fingerprint: r.fingerprint,
  status: r.status,
  created_at: new Date(r.created_at).toISOString(),
  revoked_at: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
});

/**
 * A tenant's keys for the external providers of graph agents (TavilySearch, YahooFinance). The
 * secret is write-only: sealed (SecretBox) before it reaches a query, never returned; keys are
 * named by their fingerprint. Setting a key when one is active rotates it (the old one is revoked
 * in the same transaction); the planner reads the key for each call, so a change applies to the
 * next call.
 */
@Controller('v1/admin/tenants/:tenant_id/provider-keys')
@UseGuards(AdminTokenGuard)
export class ProviderKeysController {
  constructor(
    @Inject(AdminRepository) private readonly admin: AdminRepository,
    @Inject(SecretBox) private readonly box: SecretBox,
  ) {}

  @Put(':provider')
  async set(
    @Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string,
    @Param('provider', new ZodPipe(ProviderSchema)) provider: Provider,
    @Body(new ZodPipe(SetProviderKeySchema)) body: z.infer<typeof SetProviderKeySchema>,
  ) {
    const { row, replaced } = await this.admin.setProviderKey(tenantId, provider, {
      sealed: this.box.seal(body.secret),
      fingerprint: SecretBox.fingerprint(body.secret),
    });
    return { ...view(row), replaced };
  }

  @Get()
  async list(@Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string) {
    return { keys: (await this.admin.providerKeys(tenantId)).map(view) };
  }

  /** Revokes the tenant's active key of the provider; 404 when it has none. */
  @Delete(':provider')
  @HttpCode(200)
  async revoke(
    @Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string,
    @Param('provider', new ZodPipe(ProviderSchema)) provider: Provider,
  ) {
    return view(await this.admin.revokeProviderKey(tenantId, provider));
  }
}
