import type { PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { ApiErrorCode, ApiException } from './api.exception';

/** Validates a body or query against a zod schema; the failing fields go into `details`. */
export class ZodPipe<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.infer<S> {
    const parsed = this.schema.safeParse(value);
    if (!parsed.success) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        'the request is invalid',
        parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message })),
      );
    }
    return parsed.data;
  }
}
