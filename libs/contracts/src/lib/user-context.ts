import { z } from 'zod';

/** The business service's id for its user (run metadata `user_id`, the profile API's path). */
export const UserIdSchema = z.string().min(1).max(200);
/** A business of a tenant (a business service's own id): `metadata.business_id` of a run. */
export const BusinessIdSchema = z.string().min(1).max(200);

/** A stored profile is a JSON object; `user_context` is `{user_id, ...profile}`. */
export const UserProfileSchema = z.record(z.string(), z.unknown());
export type UserProfile = z.infer<typeof UserProfileSchema>;

/** Largest profile body the API stores (its JSON text, in bytes). */
export const USER_PROFILE_MAX_BYTES = 64 * 1024;

// Fields a profile commonly carries get a sentence of their own; anything else is listed as is.
const PHRASES: Record<string, string> = {
  name: 'Name',
  language: 'Preferred language',
  locale: 'Locale',
  timezone: 'Time zone',
  role: 'Role',
  occupation: 'Occupation',
  expertise: 'Expertise',
  interests: 'Interests',
  preferences: 'Preferences',
};
// Cap what a profile adds to every prompt; a profile is at most 64 KiB, prompts should stay small.
const MAX_PROMPT_CHARS = 4000;

function show(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    return value.join(', ');
  }
  return JSON.stringify(value);
}

/**
 * The prompt paragraph describing the user (seed 003: a fixed template, filled only with the
 * fields the profile has): '' when `user_context` is empty, so prompts stay unchanged.
 */
export function describeUserContext(userContext: Readonly<Record<string, unknown>>): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(userContext)) {
    if (key === 'user_id' || value === null || value === undefined || value === '') {
      continue;
    }
    lines.push(`- ${PHRASES[key] ?? key}: ${show(value)}`);
  }
  if (lines.length === 0) {
    return '';
  }
  const text = `About the user (from their profile):\n${lines.join('\n')}`;
  return text.length > MAX_PROMPT_CHARS ? `${text.slice(0, MAX_PROMPT_CHARS - 3)}...` : text;
}
