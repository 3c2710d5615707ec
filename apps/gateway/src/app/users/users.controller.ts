import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, UseGuards } from '@nestjs/common';
import {
  USER_PROFILE_MAX_BYTES,
  type UserProfile,
  UserIdSchema,
  UserProfileSchema,
} from '@switchyard/contracts';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { type ProfileRow, UsersRepository } from './users.repository';

const view = (row: ProfileRow) => ({
  user_id: row.user_id,
  profile: row.profile,
  updated_at: new Date(row.updated_at).toISOString(),
});

/**
 * Profiles of a tenant's users (the business service's own user ids). A run whose metadata names
 * `user_id` starts its thread with that user's profile as `user_context` (intake loads it once
 * per thread); another tenant's profile of the same id is never visible.
 */
@Controller('v1/users')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class UsersController {
  constructor(@Inject(UsersRepository) private readonly users: UsersRepository) {}

  @Put(':user_id/profile')
  @HttpCode(200)
  async put(
    @Tenant() tenant: TenantContext,
    @Param('user_id', new ZodPipe(UserIdSchema)) userId: string,
    @Body(new ZodPipe(UserProfileSchema)) profile: UserProfile,
  ) {
    const json = JSON.stringify(profile);
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > USER_PROFILE_MAX_BYTES) {
      throw new ApiException(
        ApiErrorCode.PayloadTooLarge,
        `the profile is ${bytes} bytes of JSON; the limit is ${USER_PROFILE_MAX_BYTES}`,
      );
    }
    return view(await this.users.put(tenant.tenantId, userId, json));
  }

  @Get(':user_id/profile')
  async get(@Tenant() tenant: TenantContext, @Param('user_id', new ZodPipe(UserIdSchema)) userId: string) {
    return view(await this.users.getOrThrow(tenant.tenantId, userId));
  }

  @Delete(':user_id/profile')
  @HttpCode(204)
  async remove(
    @Tenant() tenant: TenantContext,
    @Param('user_id', new ZodPipe(UserIdSchema)) userId: string,
  ): Promise<void> {
    await this.users.remove(tenant.tenantId, userId);
  }
}
