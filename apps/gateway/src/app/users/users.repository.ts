import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { UserProfile } from '@switchyard/contracts';
import { ApiException } from '../http/api.exception';

export interface ProfileRow {
  user_id: string;
  profile: UserProfile;
  updated_at: Date;
}

/** A tenant's user profiles: every query is scoped to the tenant. */
@Injectable()
export class UsersRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** Creates or replaces the profile (`json`: the profile as JSON text). */
  async put(tenantId: string, userId: string, json: string): Promise<ProfileRow> {
    const [row] = (await this.ds.query(
      `INSERT INTO user_profiles (tenant_id, user_id, profile) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, user_id) DO UPDATE SET profile = EXCLUDED.profile, updated_at = now()
       RETURNING user_id, profile, updated_at`,
      [tenantId, userId, json],
    )) as ProfileRow[];
    return row;
  }

  async getOrThrow(tenantId: string, userId: string): Promise<ProfileRow> {
    const [row] = (await this.ds.query(
      'SELECT user_id, profile, updated_at FROM user_profiles WHERE tenant_id = $1 AND user_id = $2',
      [tenantId, userId],
    )) as ProfileRow[];
    if (!row) {
      throw ApiException.notFound(`profile of user "${userId}"`);
    }
    return row;
  }

  async remove(tenantId: string, userId: string): Promise<void> {
    const [, affected] = (await this.ds.query(
      'DELETE FROM user_profiles WHERE tenant_id = $1 AND user_id = $2',
      [tenantId, userId],
    )) as [unknown, number];
    if (affected === 0) {
      throw ApiException.notFound(`profile of user "${userId}"`);
    }
  }
}
