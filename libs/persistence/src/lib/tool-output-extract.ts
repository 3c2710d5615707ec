import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { TOOL_OUTPUT_REF_PREFIX, type RunErrorCode } from '@switchyard/contracts';

// Seed 001's `extract_data_by_path`: a tool output too large for the action is shrunk there and
// kept whole (`reference: "tool-output:<id>"`); this reads the part of it the agent needs. The
// tool-executor serves it as a tool to the planner; the output node calls it itself.

export const extractDataInputSchema = z
  .object({
    reference: z
      .string()
      .regex(
        /^tool-output:[0-9a-f-]{36}$/,
        'a reference is "tool-output:<id>", as a truncated result names it',
      )
      .describe('The `reference` of an earlier action whose output was kept whole (`tool-output:<id>`).'),
    path: z
      .string()
      .max(1_000)
      .regex(/^(\/.*)?$/, 'a path is a JSON Pointer: "" or "/rows/3999"')
      .default('')
      .describe(
        'A JSON Pointer into that output: "/rows/3999" is the 4,000th row, "/columns" the column names, "" all of it.',
      ),
  })
  .strict();
export type ExtractDataInput = z.infer<typeof extractDataInputSchema>;

/** The tool as a model is offered it: name, description, and the JSON Schema of its arguments. */
export const EXTRACT_DATA_TOOL = {
  name: 'extract_data_by_path',
  description:
    "Reads a part of an earlier action's full output that was too large to show (its result says " +
    '`output_truncated` and names a `reference`): the value at a `path` inside it, a pointer such as ' +
    '/rows/3999 (the 4,000th row). The data catalogue in the instructions lists what is kept, with its size and shape.',
  parameters: (({ $schema: _dialect, ...schema }) => schema)(
    z.toJSONSchema(extractDataInputSchema, { io: 'input' }) as Record<string, unknown>,
  ),
} as const;

/** The reference or the path finds nothing: an observation for the agent, not worth a retry. */
export class DataNotFoundError extends Error {
  readonly retryable = false;
  readonly code = 'data_not_found' satisfies RunErrorCode;
}

/** A JSON Pointer's tokens (RFC 6901: `~1` is `/`, `~0` is `~`). */
export function pointerTokens(path: string): string[] {
  return path === ''
    ? []
    : path
        .slice(1)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * The value at `path` in the kept output `reference`, for a run of the same thread (a later turn
 * reads what an earlier one kept; another thread's or tenant's output is not found). A pointer
 * that leads nowhere says how deep it matched and what is there, so the agent can correct it.
 */
export async function extractData(
  ds: DataSource,
  runId: string,
  { reference, path }: ExtractDataInput,
): Promise<{ value: unknown; tool: string; bytes: number }> {
  const id = reference.slice(TOOL_OUTPUT_REF_PREFIX.length);
  const tokens = pointerTokens(path);
  // The deepest prefix of the path that exists, and a description of what is there: when the
  // pointer breaks, the agent learns where and what to ask instead (without the output shipped).
  const [row] = (await ds.query(
    `WITH o AS (
       SELECT o.tool, o.bytes, o.content FROM tool_outputs o
       JOIN runs r ON r.id = o.run_id JOIN runs cur ON cur.id = $2
       WHERE o.id = $1 AND r.thread_id = cur.thread_id
     ), d AS (
       SELECT max(n)::int AS depth FROM o, generate_series(0, cardinality($3::text[])) AS n
       WHERE o.content #> ($3::text[])[1:n] IS NOT NULL
     ), at AS (SELECT o.tool, o.bytes, d.depth, o.content #> ($3::text[])[1:d.depth] AS v FROM o, d)
     SELECT tool, bytes, depth, CASE WHEN depth = cardinality($3::text[]) THEN v END AS value,
            jsonb_typeof(v) AS kind,
            CASE WHEN jsonb_typeof(v) = 'array' THEN jsonb_array_length(v) END AS length,
            CASE WHEN jsonb_typeof(v) = 'object'
                 THEN (SELECT array_agg(k) FROM (SELECT jsonb_object_keys(v) AS k LIMIT 13) ks) END AS keys
     FROM at`,
    [id, runId, tokens],
  )) as (
    | {
        tool: string;
        bytes: number;
        depth: number;
        value: unknown;
        kind: string;
        length: number | null;
        keys: string[] | null;
      }
    | undefined
  )[];
  if (!row) {
    throw new DataNotFoundError(`${reference} is not kept for this thread (unknown, or pruned by retention)`);
  }
  if (row.depth < tokens.length) {
    const at = tokens
      .slice(0, row.depth)
      .map((t) => `/${t}`)
      .join('');
    const what =
      row.kind === 'array'
        ? `an array of ${row.length}`
        : row.kind === 'object'
          ? `an object with ${(row.keys ?? []).slice(0, 12).join(', ')}${(row.keys ?? []).length > 12 ? ', …' : ''}`
          : `a ${row.kind}`;
    throw new DataNotFoundError(
      `${reference} has nothing at "${path}": "${at || '(the top)'}" holds ${what}`,
    );
  }
  return { value: row.value, tool: row.tool, bytes: row.bytes };
}
