import { type RunErrorCode } from '@switchyard/contracts';
/**
 * What a data source or a query refused or could not do: an observation for whoever asked (the
 * `sql_query` tool, a graph's ExeSQL), never retried — `retryable: false` and a `code`, the shape
 * the node runtime treats as a failed call rather than a crash.
 */
export class SqlSourceError extends Error {
  readonly retryable = false;
  constructor(
    message: string,
    readonly code: RunErrorCode,
  ) {
    super(message);
    this.name = 'SqlSourceError';
  }
}
