import { Inject, Injectable } from '@nestjs/common';
import { type UserProfile, UserProfileSchema } from '@switchyard/contracts';
import { RunsRepository } from './runs.repository';

/** A run's user and that user's stored profile. */
export interface RunUserProfile {
  user_id: string;
  profile: UserProfile;
}

/**
 * Seed 003's fixed user-context loader: the run's `metadata.user_id`, looked up in the task's
 * tenant (a profile of the same id in another tenant is never read).
 */
@Injectable()
export class UserProfileLoader {
  constructor(@Inject(RunsRepository) private readonly runs: RunsRepository) {}

  /** The profile of the run's user; null when the run names no user or the user has no profile. */
  async forRun(runId: string, tenantId: string): Promise<RunUserProfile | null> {
    const row = await this.runs.userProfileOf(runId, tenantId);
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
