import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  Logger,
  type NestInterceptor,
} from '@nestjs/common';
import type { Request } from 'express';
import { type Observable, tap } from 'rxjs';
import { REGISTRY_CHANGED_SUBJECT } from '@switchyard/contracts';
import { JetStreamConnection } from '@switchyard/jetstream';

/**
 * After a successful write to the model registry (any non-GET request of the controller), tells
 * every service to reload its copy (`sy.registry.changed`). The response does not wait for them:
 * each call checks the registry's revision anyway, so a change is in force for every call that
 * starts after the response; the notice only spares that call the reload.
 */
@Injectable()
export class RegistryChangedInterceptor implements NestInterceptor {
  private readonly logger = new Logger(RegistryChangedInterceptor.name);

  constructor(@Inject(JetStreamConnection) private readonly nats: JetStreamConnection) {}

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
    );
  }
}
