import { Controller, Get, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { WebhooksRepository } from './webhooks.repository';

/** The tenant's webhook signing secret (made on first read), and its rotation. */
@Controller('v1/webhooks')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class WebhooksController {
  constructor(@Inject(WebhooksRepository) private readonly repo: WebhooksRepository) {}

  @Get('secret')
  async secret(@Tenant() tenant: TenantContext) {
    return { secret: await this.repo.secret(tenant.tenantId), header: 'X-Switchyard-Signature' };
  }

  @Post('secret/rotate')
  @HttpCode(200)
  async rotate(@Tenant() tenant: TenantContext) {
    return { secret: await this.repo.rotate(tenant.tenantId), header: 'X-Switchyard-Signature' };
  }
}
