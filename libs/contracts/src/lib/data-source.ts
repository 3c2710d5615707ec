import { z } from 'zod';

// Per-tenant data sources that `sql_query` reads: shared by the gateway (which stores them) and
// the tool-executor (which runs queries against them), so both apply the same limits.

export const DataSourceNameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'must start with a letter and contain only letters, digits, "_" and "-"')
  .max(64);

/** Limits of one data source; every query runs under them. */
export const DataSourceOptionsSchema = z
  .object({
    /** SET LOCAL statement_timeout for each query (also the lock and idle-in-transaction timeouts). */
    statement_timeout_ms: z.number().int().min(100).max(600_000).default(10_000),
    /** Rows returned at most; a query asking for fewer (`max_rows` argument) gets fewer. */
    max_rows: z.number().int().min(1).max(10_000).default(1000),
    /** Bytes of the serialized rows kept at most; rows past it are dropped and the result says so. */
    max_bytes: z
      .number()
      .int()
      .min(1024)
      .max(50 * 1024 * 1024)
      .default(1024 * 1024),
  })
  .strict();
export type DataSourceOptions = z.infer<typeof DataSourceOptionsSchema>;

/** The reference a truncated tool result carries to its full output (`GET /v1/runs/:run_id/tool-outputs/:ref`). */
export const TOOL_OUTPUT_REF_PREFIX = 'tool-output:';
