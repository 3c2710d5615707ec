import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';

/**
 * Lets a handler's error reach the transport unchanged. Nest's default RPC filter replaces any
 * error that is not an `RpcException` with "Internal server error", which would hide
 * `retryable: false` and turn a message that must be terminated into one retried forever.
 */
@Catch()
export class JetStreamExceptionFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
