import {
  type CanActivate,
  type ExecutionContext,
  Inject,
  Injectable,
  createParamDecorator,
} from '@nestjs/common';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { hashApiKey } from './api-key.util';

export interface TenantContext {
  tenantId: string;
  keyId: string;
  /** The tenant's own request rate and burst (null: the gateway's defaults). */
  rateLimit?: { perSecond: number | null; burst: number | null };
}

type AuthedRequest = Request & { tenant?: TenantContext };

/**
 * `Authorization: Bearer <key>` (or `x-api-key: <key>`): the key's hash is looked up (an indexed equality on a hash, so
 * no timing oracle on the key itself); revoked keys fail at once since nothing is cached.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const header = req.headers.authorization;
    const xApiKey = req.headers['x-api-key'];
    // `x-api-key` is how the LangGraph SDK sends its key (`new Client({apiKey})`).
    const key =
      header !== undefined
        ? /^Bearer\s+(\S+)$/i.exec(header)?.[1]
        : typeof xApiKey === 'string'
          ? xApiKey
          : undefined;
    if (!key) {
      throw new ApiException(
        ApiErrorCode.Unauthorized,
        'send an API key as "Authorization: Bearer <key>" or as "x-api-key: <key>"',
      );
    }
    // The tenant's limits come with the key (a primary-key join): a change applies to the next request.
    const rows = (await this.ds.query(
      `SELECT k.id, k.tenant_id, t.rate_limit_per_second, t.rate_limit_burst
       FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.hash = $1 AND k.revoked_at IS NULL`,
      [hashApiKey(key)],
    )) as {
      id: string;
      tenant_id: string;
      rate_limit_per_second: number | null;
      rate_limit_burst: number | null;
    }[];
    if (rows.length === 0) {
      throw new ApiException(ApiErrorCode.Unauthorized, 'the API key is not valid');
    }
    const row = rows[0];
    req.tenant = {
      tenantId: row.tenant_id,
      keyId: row.id,
      rateLimit: { perSecond: row.rate_limit_per_second, burst: row.rate_limit_burst },
    };
    return true;
  }
}

export const Tenant = createParamDecorator((_: unknown, ctx: ExecutionContext): TenantContext => {
  const tenant = ctx.switchToHttp().getRequest<AuthedRequest>().tenant;
  if (!tenant) {
    throw new ApiException(ApiErrorCode.Unauthorized, 'not authenticated');
  }
  return tenant;
});
