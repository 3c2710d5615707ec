import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, UseGuards } from '@nestjs/common';
import { DataSource } from 'typeorm';
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

interface ProfileRow {
  user_id: string;
  profile: UserProfile;
  updated_at: Date;
}

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
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

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
    const [row] = (await this.ds.query(
      `INSERT INTO user_profiles (tenant_id, user_id, profile) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, user_id) DO UPDATE SET profile = EXCLUDED.profile, updated_at = now()
       RETURNING user_id, profile, updated_at`,
      [tenant.tenantId, userId, json],
    )) as ProfileRow[];
    return view(row);
  }

  @Get(':user_id/profile')
  async get(@Tenant() tenant: TenantContext, @Param('user_id', new ZodPipe(UserIdSchema)) userId: string) {
    const [row] = (await this.ds.query(
      'SELECT user_id, profile, updated_at FROM user_profiles WHERE tenant_id = $1 AND user_id = $2',
      [tenant.tenantId, userId],
    )) as ProfileRow[];
    if (!row) {
      throw ApiException.notFound(`profile of user "${userId}"`);
    }
    return view(row);
  }

  @Delete(':user_id/profile')
  @HttpCode(204)
  async remove(
    @Tenant() tenant: TenantContext,
    @Param('user_id', new ZodPipe(UserIdSchema)) userId: string,
  ): Promise<void> {
    const [, affected] = (await this.ds.query(
      'DELETE FROM user_profiles WHERE tenant_id = $1 AND user_id = $2',
      [tenant.tenantId, userId],
    )) as [unknown, number];
    if (affected === 0) {
      throw ApiException.notFound(`profile of user "${userId}"`);
    }
  }
}
