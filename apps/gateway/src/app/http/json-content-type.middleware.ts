import type { NextFunction, Request, Response } from 'express';
import { ApiErrorCode, ApiException } from './api.exception';

// The routes that also take files as multipart/form-data.
const MULTIPART_ROUTES = [/^\/v1\/collections\/[^/]+\/documents\/?$/, /^\/v1\/files\/?$/];

/** A request with a body must say it is JSON (415 otherwise), or multipart where files are taken. */
export function requireJsonBody(req: Request, _res: Response, next: NextFunction): void {
  const hasBody =
    Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  const path = req.originalUrl.split('?')[0];
  const multipartOk = MULTIPART_ROUTES.some((r) => r.test(path)) && req.is('multipart/form-data');
  if (
    ['POST', 'PUT', 'PATCH'].includes(req.method) &&
    hasBody &&
    !req.is('application/json') &&
    !multipartOk
  ) {
    next(new ApiException(ApiErrorCode.UnsupportedMediaType, 'send the body as application/json'));
    return;
  }
  next();
}
