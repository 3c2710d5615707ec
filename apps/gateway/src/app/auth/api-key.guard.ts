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
import { AuthRepository } from './auth.repository';

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
  private readonly keys: AuthRepository;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.keys = new AuthRepository(ds);
  }

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
    const row = await this.keys.liveKey(hashApiKey(key));
    if (!row) {
      throw new ApiException(ApiErrorCode.Unauthorized, 'the API key is not valid');
    }
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
