import type { z } from 'zod';

/** A one-line, human-readable account of what failed validation, e.g. `node: Required; usage.total_tokens: …`. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}
