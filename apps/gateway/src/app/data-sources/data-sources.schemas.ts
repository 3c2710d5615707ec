import { z } from 'zod';
import { DataSourceNameSchema, DataSourceOptionsSchema } from '@switchyard/contracts';
import { dsnDialect } from '@switchyard/sql-sources';

// Request and response shapes of /v1/data-sources and the tool-output endpoint; the OpenAPI
// description is built from these.

const DSN_FORMS = {
  postgres: 'a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)',
  mysql: 'a mysql:// URL (mysql://user:password@host:3306/database)',
} as const;

/** Why a DSN is refused for a data source of `kind`, or undefined. Messages never quote the DSN: it holds a password. */
export function dsnProblem(dsn: string, kind: DataSourceKind): string | undefined {
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    return `dsn must be ${DSN_FORMS[kind]}`;
  }
  if (dsnDialect(dsn) !== kind) {
    return `dsn must be ${DSN_FORMS[kind]} for a ${kind} data source`;
  }
  if (!url.hostname) {
    return 'dsn must name a host';
  }
  if (url.pathname.length <= 1) {
    return `dsn must name a database (${DSN_FORMS[kind]})`;
  }
  // A host in the query string would bypass the host check; options could alter the session.
  // A mysql:// pool is built from the URL's parts: a parameter would be silently ignored.
  const refused = kind === 'mysql' ? [...url.searchParams.keys()] : ['host', 'hostaddr', 'options'];
  for (const param of refused) {
    if (url.searchParams.has(param)) {
      return `the dsn parameter "${param}" is not supported`;
    }
  }
  return undefined;
}

/** The engines a data source may be: PostgreSQL, or MySQL (MySQL, MariaDB, OceanBase's MySQL mode). */
export const DataSourceKindSchema = z.enum(['postgres', 'mysql']);
export type DataSourceKind = z.infer<typeof DataSourceKindSchema>;

export const CreateDataSourceSchema = z
  .object({
    name: DataSourceNameSchema,
    kind: DataSourceKindSchema,
    dsn: z.string().max(4096),
    options: DataSourceOptionsSchema.partial().optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    const problem = dsnProblem(v.dsn, v.kind);
    if (problem) {
      ctx.addIssue({ code: 'custom', path: ['dsn'], message: problem });
    }
  });
export type CreateDataSource = z.infer<typeof CreateDataSourceSchema>;

export const DataSourceSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  kind: DataSourceKindSchema,
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
