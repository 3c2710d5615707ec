import { createHash } from 'node:crypto';

/** Keys are high-entropy, so a plain SHA-256 is the right hash (no password stretching needed). */
export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');
export const keyPrefix = (key: string): string => key.slice(0, 8);
