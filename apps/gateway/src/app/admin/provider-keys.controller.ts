import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, UseGuards } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { SecretBox } from '@switchyard/config';
import { PROVIDERS, type Provider } from '@switchyard/provider-tools';
import { ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { AdminTokenGuard } from './admin-token.guard';

const IdSchema = z.string().uuid();
export const ProviderSchema = z.enum(PROVIDERS);
export const SetProviderKeySchema = z.object({ secret: z.string().trim().min(1).max(4096) }).strict();

interface ProviderKeyRow {
  id: string;
  tenant_id: string;
  provider: Provider;
  fingerprint: string;
  status: 'active' | 'revoked';
  created_at: Date;
  revoked_at: Date | null;
}

const COLUMNS = 'id, tenant_id, provider, fingerprint, status, created_at, revoked_at';

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
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(SecretBox) private readonly box: SecretBox,
  ) {}

  @Put(':provider')
  async set(
    @Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string,
    @Param('provider', new ZodPipe(ProviderSchema)) provider: Provider,
    @Body(new ZodPipe(SetProviderKeySchema)) body: z.infer<typeof SetProviderKeySchema>,
  ) {
    const sealed = this.box.seal(body.secret);
    const fingerprint = SecretBox.fingerprint(body.secret);
    return this.ds.transaction(async (m) => {
      // The tenant row is locked so two rotations of one tenant's key do not race.
      const [tenant] = (await m.query('SELECT id FROM tenants WHERE id = $1 FOR UPDATE', [
        tenantId,
      ])) as unknown[];
      if (!tenant) {
        throw ApiException.notFound('tenant');
      }
      const revoked = (await m.query(
        `UPDATE provider_keys SET status = 'revoked', revoked_at = now()
         WHERE tenant_id = $1 AND provider = $2 AND status = 'active' RETURNING ${COLUMNS}`,
        [tenantId, provider],
      )) as [ProviderKeyRow[], number];
      const [row] = (await m.query(
        `INSERT INTO provider_keys (tenant_id, provider, secret_sealed, fingerprint)
         VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
        [tenantId, provider, sealed, fingerprint],
      )) as ProviderKeyRow[];
      return { ...view(row), replaced: revoked[0].map((r) => r.id) };
    });
  }

  @Get()
  async list(@Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string) {
    const [tenant] = (await this.ds.query('SELECT id FROM tenants WHERE id = $1', [tenantId])) as unknown[];
    if (!tenant) {
      throw ApiException.notFound('tenant');
    }
    const rows = (await this.ds.query(
      `SELECT ${COLUMNS} FROM provider_keys WHERE tenant_id = $1 ORDER BY provider, created_at, id`,
      [tenantId],
    )) as ProviderKeyRow[];
    return { keys: rows.map(view) };
  }

  /** Revokes the tenant's active key of the provider; 404 when it has none. */
  @Delete(':provider')
  @HttpCode(200)
  async revoke(
    @Param('tenant_id', new ZodPipe(IdSchema)) tenantId: string,
    @Param('provider', new ZodPipe(ProviderSchema)) provider: Provider,
  ) {
    const [rows] = (await this.ds.query(
      `UPDATE provider_keys SET status = 'revoked', revoked_at = now()
       WHERE tenant_id = $1 AND provider = $2 AND status = 'active' RETURNING ${COLUMNS}`,
      [tenantId, provider],
    )) as [ProviderKeyRow[], number];
    if (rows.length === 0) {
      throw ApiException.notFound(`active ${provider} key`);
    }
    return view(rows[0]);
  }
}
