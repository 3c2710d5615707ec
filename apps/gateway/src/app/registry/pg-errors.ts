import { QueryFailedError } from 'typeorm';

/** The SQLSTATE of a failed query (23505 unique violation, 23503 foreign key…), if it is one. */
export function pgCode(err: unknown): string | undefined {
  return err instanceof QueryFailedError ? (err.driverError as { code?: string }).code : undefined;
}
