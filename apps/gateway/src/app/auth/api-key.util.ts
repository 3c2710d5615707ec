import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Keys are high-entropy, so a plain SHA-256 is the right hash (no password stretching needed). */
export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');
export const keyPrefix = (key: string): string => key.slice(0, 8);

/** A new API key: a recognisable prefix and 256 random bits. */
export const newApiKey = (): string => `sy_live_${randomBytes(32).toString('base64url')}`;

/** Compares two secrets in constant time (their hashes, so lengths never leak). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
