import { type CanActivate, type ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import Redis from 'ioredis';
import { GatewayConfig } from '../gateway.config';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import type { TenantContext } from './api-key.guard';

// Token bucket in one round trip: refills `rate` tokens a second up to `burst`, takes one.
// Returns {allowed, ms until a token is available}.
const TOKEN_BUCKET = `
local key = KEYS[1]
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local b = redis.call('HMGET', key, 't', 'ts')
local tokens = tonumber(b[1])
local ts = tonumber(b[2])
if tokens == nil then tokens = burst; ts = now end
tokens = math.min(burst, tokens + (now - ts) * rate / 1000)
local allowed = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait = math.ceil((1 - tokens) * 1000 / rate)
end
redis.call('HSET', key, 't', tokens, 'ts', now)
redis.call('PEXPIRE', key, math.ceil(burst * 1000 / rate) + 1000)
return {allowed, wait}
`;

/**
 * Per-tenant request rate limit (after authentication): 429 `rate_limited` with `Retry-After`. The
 * tenant's own rate and burst when the admin set them, else SWITCHYARD_RATE_LIMIT_*.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly logger = new Logger(RateLimitGuard.name);

  constructor(
    @Inject(Redis) private readonly redis: Redis,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const http = ctx.switchToHttp();
    const tenant = http.getRequest<Request & { tenant?: TenantContext }>().tenant;
    if (!tenant) {
      return true;
    }
    let result: [number, number];
    try {
      result = (await this.redis.eval(
        TOKEN_BUCKET,
        1,
        `sy:ratelimit:${tenant.tenantId}`,
        tenant.rateLimit?.perSecond ?? this.config.rateLimitPerSecond,
        tenant.rateLimit?.burst ?? this.config.rateLimitBurst,
        Date.now(),
      )) as [number, number];
    } catch (err) {
      // Redis trouble must not take the API down: let the request through, say so.
      this.logger.warn(`rate limit not checked: ${(err as Error).message}`);
      return true;
    }
    if (result[0] === 1) {
      return true;
    }
    const seconds = Math.max(1, Math.ceil(result[1] / 1000));
    http.getResponse<Response>().setHeader('Retry-After', String(seconds));
    throw new ApiException(ApiErrorCode.RateLimited, `too many requests; retry in ${seconds} s`);
  }
}
