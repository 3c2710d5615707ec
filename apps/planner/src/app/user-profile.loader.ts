import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type UserProfile, UserProfileSchema } from '@switchyard/contracts';

/** A run's user and that user's stored profile. */
export interface RunUserProfile {
  user_id: string;
  profile: UserProfile;
}

/**
 * Seed 003's fixed user-context loader: the run's `metadata.user_id`, looked up in the run's own
 * tenant (a profile of the same id in another tenant is never read).
 */
@Injectable()
export class UserProfileLoader {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** The profile of the run's user; null when the run names no user or the user has no profile. */
  async forRun(runId: string): Promise<RunUserProfile | null> {
    const [row] = (await this.ds.query(
      `SELECT r.metadata->>'user_id' AS user_id, p.profile
       FROM runs r
       LEFT JOIN user_profiles p ON p.tenant_id = r.tenant_id AND p.user_id = r.metadata->>'user_id'
       WHERE r.id = $1`,
      [runId],
    )) as { user_id: string | null; profile: unknown }[];
    if (!row?.user_id || row.profile === null || row.profile === undefined) {
      return null;
    }
    const profile = UserProfileSchema.safeParse(row.profile);
    if (!profile.success) {
      // The table's CHECK keeps profiles objects; anything else is a bug worth failing the step for.
      throw new Error(`user_profiles row of user "${row.user_id}" is not a JSON object`);
    }
    return { user_id: row.user_id, profile: profile.data };
  }
}
