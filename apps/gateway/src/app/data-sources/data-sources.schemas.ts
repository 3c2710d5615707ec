import { z } from 'zod';
import { DataSourceNameSchema, DataSourceOptionsSchema } from '@switchyard/contracts';

// Request and response shapes of /v1/data-sources and the tool-output endpoint; the OpenAPI
// description is built from these.

/** Why a DSN is refused, or undefined. Messages never quote the DSN: it holds a password. */
export function dsnProblem(dsn: string): string | undefined {
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    return 'dsn must be a postgres:// or postgresql:// URL';
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    return 'dsn must be a postgres:// or postgresql:// URL';
  }
  if (!url.hostname) {
    return 'dsn must name a host';
  }
  if (url.pathname.length <= 1) {
    return 'dsn must name a database (postgres://user:password@host:5432/database)';
  }
  // A host in the query string would bypass the host check; options could alter the session.
  for (const param of ['host', 'hostaddr', 'options']) {
    if (url.searchParams.has(param)) {
      return `the dsn parameter "${param}" is not supported`;
    }
  }
  return undefined;
}

export const CreateDataSourceSchema = z
  .object({
    name: DataSourceNameSchema,
    kind: z.literal('postgres'),
    dsn: z
      .string()
      .max(4096)
      .superRefine((v, ctx) => {
        const problem = dsnProblem(v);
        if (problem) {
          ctx.addIssue({ code: 'custom', message: problem });
        }
      }),
    options: DataSourceOptionsSchema.partial().optional(),
  })
  .strict();
export type CreateDataSource = z.infer<typeof CreateDataSourceSchema>;

export const DataSourceSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  kind: z.literal('postgres'),
  // The DSN is write-only: only where it points comes back, never the user or password.
  host: z.string(),
  database: z.string(),
  options: DataSourceOptionsSchema,
  created_at: z.string(),
});
export type DataSourceView = z.infer<typeof DataSourceSchema>;

export const ToolOutputSchema = z.object({
  id: z.string().uuid(),
  reference: z.string(),
  run_id: z.string().uuid(),
  tool: z.string(),
  bytes: z.number(),
  created_at: z.string(),
  /** The tool's full result, as it was before the action's copy was truncated. */
  content: z.unknown(),
});
