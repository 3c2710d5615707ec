import { Cron } from 'croner';
import { ApiException } from '../http/api.exception';

/**
 * A cron schedule: five fields (minute hour day-of-month month day-of-week, as LangGraph's), or six
 * with seconds first; in `timezone` (IANA, UTC by default). Refused at once when it does not parse.
 */
export function checkSchedule(schedule: string, timezone: string): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    throw ApiException.invalidField(
      'timezone',
      `"${timezone}" is not an IANA time zone (e.g. Europe/Lisbon, UTC)`,
    );
  }
  try {
    new Cron(schedule, { timezone, paused: true });
  } catch (err) {
    throw ApiException.invalidField(
      'schedule',
      `"${schedule}" is not a cron expression: ${(err as Error).message}`,
    );
  }
}

/** The first firing strictly after `after` (null: none, or past `endTime`). */
export function nextFiring(
  schedule: string,
  timezone: string,
  after: Date,
  endTime: Date | null,
): Date | null {
  const next = new Cron(schedule, { timezone, paused: true }).nextRun(after);
  return next && (!endTime || next <= endTime) ? next : null;
}
