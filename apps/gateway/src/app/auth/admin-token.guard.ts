import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { secretsEqual } from './api-key.util';
import { GatewayConfig } from '../gateway.config';
import { ApiErrorCode, ApiException } from '../http/api.exception';

/** `/v1/admin/...`: `Authorization: Bearer <SWITCHYARD_ADMIN_TOKEN>`, compared in constant time. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(@Inject(GatewayConfig) private readonly config: GatewayConfig) {}

  canActivate(ctx: ExecutionContext): boolean {
    const token = this.config.adminToken;
    const header = ctx.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!token) {
      throw new ApiException(
        ApiErrorCode.Unauthorized,
        'the admin API is disabled (SWITCHYARD_ADMIN_TOKEN is not set)',
      );
    }
    if (!match || !secretsEqual(match[1], token)) {
      throw new ApiException(
        ApiErrorCode.Unauthorized,
        'send the admin token as "Authorization: Bearer <token>"',
      );
    }
    return true;
  }
}
