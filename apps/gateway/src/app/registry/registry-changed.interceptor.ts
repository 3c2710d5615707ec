import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  Logger,
  type NestInterceptor,
} from '@nestjs/common';
import type { Request } from 'express';
import { type Observable, concatMap, map, of, tap, timer } from 'rxjs';
import { REGISTRY_CHANGED_SUBJECT } from '@switchyard/contracts';
import { JetStreamConnection } from '@switchyard/jetstream';
import { ChatModels } from '@switchyard/models';

// setTimeout may fire up to a millisecond before its delay by a precise clock: wait a little more.
const TIMER_SLACK_MS = 2;

/**
 * After a successful write to the model registry (any non-GET request of the controller), tells
 * every service to reload its copy (`sy.registry.changed`) and holds the response for the
 * registry's lease (`SWITCHYARD_MODEL_REGISTRY_LEASE_MS`): a service's read of the registry's
 * revision stands for the calls that start within the lease after it was sent (RegistryStore), so
 * once the response goes out every call that starts sees the write — a revoked key is never used
 * after the revoke returned. The notice only spares the next call the reload; it is not waited for.
 */
@Injectable()
export class RegistryChangedInterceptor implements NestInterceptor {
  private readonly logger = new Logger(RegistryChangedInterceptor.name);

  constructor(
    @Inject(JetStreamConnection) private readonly nats: JetStreamConnection,
    @Inject(ChatModels) private readonly models: ChatModels,
  ) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const method = ctx.switchToHttp().getRequest<Request>().method;
    if (method === 'GET' || method === 'HEAD') {
      return next.handle();
    }
    return next.handle().pipe(
      tap(() => {
        try {
          this.nats.nc.publish(REGISTRY_CHANGED_SUBJECT);
        } catch (err) {
          this.logger.warn({
            subject: REGISTRY_CHANGED_SUBJECT,
            err,
            msg: 'registry change notice not sent',
          });
        }
      }),
      concatMap((body) => this.afterLease(body)),
    );
  }

  /** The write committed before the handler returned: its response waits out the lease. */
  private afterLease<T>(body: T): Observable<T> {
    const lease = this.models.router.store.leaseMs;
    return lease > 0 ? timer(lease + TIMER_SLACK_MS).pipe(map(() => body)) : of(body);
  }
}
