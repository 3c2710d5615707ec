import { z } from 'zod';
import { ApiErrorCode, ApiException } from '../http/api.exception';

/**
 * Keyset pagination over model_usage in (created_at, id) order: the cursor is the last row's
 * position, so pages stay stable while new rows are written. created_at travels as UTC text with
 * microseconds (`USAGE_CURSOR_TIME`): a JS Date would round to milliseconds and skip or repeat rows.
 */
export interface UsagePosition {
  created_at: string;
  id: string;
}

/** SQL rendering created_at as the cursor expects it. */
export const USAGE_CURSOR_TIME = `to_char(u.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const PositionSchema = z.object({
  c: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
  i: z.string().regex(/^\d{1,19}$/),
});

export function encodeUsageCursor(p: UsagePosition): string {
  return Buffer.from(JSON.stringify({ c: p.created_at, i: p.id })).toString('base64url');
}

export function decodeUsageCursor(cursor: string): UsagePosition {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    raw = undefined;
  }
  const parsed = PositionSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ApiException(ApiErrorCode.InvalidRequest, 'the request is invalid', [
      { field: 'cursor', message: 'not a cursor this endpoint returned (use next_cursor as given)' },
    ]);
  }
  return { created_at: parsed.data.c, id: parsed.data.i };
}
