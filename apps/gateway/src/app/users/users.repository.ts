import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { DataSource } from 'typeorm';
import type { UserProfile } from '@switchyard/contracts';
import { type Db, kyselyOf } from '@switchyard/persistence';
import { ApiException } from '../http/api.exception';

export interface ProfileRow {
  user_id: string;
  profile: UserProfile;
  updated_at: Date;
}

const PROFILE_COLUMNS = ['user_id', 'profile', 'updated_at'] as const;

/** The row as stored: `profile` (jsonb) is the profile the API validated before writing it. */
const profileRow = (r: { user_id: string; profile: unknown; updated_at: Date }): ProfileRow => ({
  user_id: r.user_id,
  profile: r.profile as UserProfile,
  updated_at: r.updated_at,
});

/** A tenant's user profiles: every query is scoped to the tenant. */
@Injectable()
export class UsersRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** Creates or replaces the profile (`json`: the profile as JSON text). */
  async put(tenantId: string, userId: string, json: string): Promise<ProfileRow> {
    const row = await this.db
      .insertInto('user_profiles')
      .values({ tenant_id: tenantId, user_id: userId, profile: json })
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'user_id']).doUpdateSet((eb) => ({
          profile: eb.ref('excluded.profile'),
          updated_at: sql<Date>`now()`,
        })),
      )
      .returning(PROFILE_COLUMNS)
      .executeTakeFirstOrThrow();
    return profileRow(row);
  }

  async getOrThrow(tenantId: string, userId: string): Promise<ProfileRow> {
    const row = await this.db
      .selectFrom('user_profiles')
      .select(PROFILE_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) {
      throw ApiException.notFound(`profile of user "${userId}"`);
    }
    return profileRow(row);
  }

  async remove(tenantId: string, userId: string): Promise<void> {
    const { numDeletedRows } = await this.db
      .deleteFrom('user_profiles')
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    if (numDeletedRows === BigInt(0)) {
      throw ApiException.notFound(`profile of user "${userId}"`);
    }
  }
}
