import { z } from 'zod';
import { DataSourceNameSchema } from '@switchyard/contracts';
import type { ToolDeclaration } from '@switchyard/worker';

export const sqlQueryInputSchema = z
  .object({
    data_source: DataSourceNameSchema.describe("Name of one of the tenant's configured data sources."),
    sql: z
      .string()
      .min(1)
      .max(100_000)
      .describe(
        "One read-only query in the data source's dialect: PostgreSQL (SELECT, WITH, VALUES, TABLE or " +
          'EXPLAIN; $1, $2… for values) or MySQL/MariaDB (also SHOW and DESCRIBE; ? for values).',
      ),
    params: z
      .array(z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .max(100)
      .default([])
      .describe(
        'Values for $1, $2… (PostgreSQL) or each ? (MySQL) in order; always pass values here instead of writing them into the SQL.',
      ),
    max_rows: z.number().int().min(1).max(10_000).optional().describe('Return at most this many rows.'),
  })
  .strict();
export type SqlQueryInput = z.infer<typeof sqlQueryInputSchema>;

const { $schema: _dialect, ...sqlQueryInputJsonSchema } = z.toJSONSchema(sqlQueryInputSchema, {
  io: 'input',
});

export const sqlQueryTool: ToolDeclaration = {
  name: 'sql_query',
  description:
    "Runs one read-only query (PostgreSQL or MySQL/MariaDB, as the data source is) against one of the tenant's data sources and returns the columns and " +
    'rows (capped in count and size; `truncated` says when rows were left out). Writes, DDL, COPY, several ' +
    'statements and server-file or session functions are refused; every query has a time limit.',
  inputJsonSchema: sqlQueryInputJsonSchema,
  // Read-only by construction: running it twice changes nothing.
  idempotent: true,
};
