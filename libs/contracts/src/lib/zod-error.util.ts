import type { z } from 'zod';

/** A one-line, human-readable account of what failed validation, e.g. `node: Required; usage.total_tokens: …`. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a value is a UUID string (ids of runs, threads, tenants, agents, blocks). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
