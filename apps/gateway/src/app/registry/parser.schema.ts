import Ajv from 'ajv';
import { z } from 'zod';

/** A role a parser applies to: a node name asking for a completion (planner, output, title…) or `*`. */
export const ParserRoleSchema = z
  .string()
  .regex(/^(\*|[a-z][a-z0-9_]{0,63})$/, 'must be "*" or a role name (lower-case letters, digits, _)');

const ParserEntrySchema = z
  .object({
    schema: z.record(z.string(), z.unknown()),
    max_retries: z.number().int().min(0).max(20),
  })
  .strict();

/**
 * Compiles a JSON Schema the way the model runtime will; returns why it does not compile, or
 * undefined. A fresh Ajv each time: Ajv caches every schema it compiled, and these are rare.
 */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  try {
    new Ajv({ strict: false, allErrors: true }).compile(schema as object);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * `{ "<role>"|"*": { schema: <JSON Schema>, max_retries: 0..20 } }`: how replies of a model are
 * parsed per role. Every schema must compile; the failing one is named by its role.
 */
export const ParserSchema = z
  .record(ParserRoleSchema, ParserEntrySchema)
  .refine((p) => Object.keys(p).length > 0, 'must name at least one role (or "*")')
  .superRefine((parser, ctx) => {
    for (const [role, entry] of Object.entries(parser)) {
      const problem = jsonSchemaProblem(entry.schema);
      if (problem) {
        ctx.addIssue({
          code: 'custom',
          path: [role, 'schema'],
          message: `the schema for role "${role}" is not a valid JSON Schema: ${problem}`,
        });
      }
    }
  });
export type Parser = z.infer<typeof ParserSchema>;
