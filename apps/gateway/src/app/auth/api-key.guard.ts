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
    const rows = (await this.ds.query(
      'SELECT id, tenant_id FROM api_keys WHERE hash = $1 AND revoked_at IS NULL',
      [hashApiKey(key)],
    )) as { id: string; tenant_id: string }[];
    if (rows.length === 0) {
      throw new ApiException(ApiErrorCode.Unauthorized, 'the API key is not valid');
    }
    req.tenant = { tenantId: rows[0].tenant_id, keyId: rows[0].id };
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
