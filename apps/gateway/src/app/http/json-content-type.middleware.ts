import type { NextFunction, Request, Response } from 'express';
import { ApiErrorCode, ApiException } from './api.exception';

/** A request with a body must say it is JSON (415 otherwise). */
export function requireJsonBody(req: Request, _res: Response, next: NextFunction): void {
  const hasBody =
    Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (['POST', 'PUT', 'PATCH'].includes(req.method) && hasBody && !req.is('application/json')) {
    next(new ApiException(ApiErrorCode.UnsupportedMediaType, 'send the body as application/json'));
    return;
  }
  next();
}
