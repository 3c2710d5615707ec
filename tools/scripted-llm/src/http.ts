import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { formatIssues } from './script.schema';
import { anthropicError } from './vendor-dialects';

// The HTTP plumbing of the scripted model server: bodies in, JSON and errors out.

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function errorType(status: number): string {
  if (status === 401) {
    return 'authentication_error';
  }
  if (status === 403) {
    return 'permission_error';
  }
  if (status === 404) {
    return 'not_found_error';
  }
  if (status === 429) {
    return 'rate_limit_error';
  }
  if (status >= 500) {
    return 'server_error';
  }
  return 'invalid_request_error';
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  // The client may already be gone (aborted mid-body); nothing left to answer then.
  if (res.headersSent || res.destroyed) {
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** An error in the framing of the API the request used (OpenAI by default). */
export function sendError(res: ServerResponse, err: HttpError, path = ''): void {
  let body: unknown;
  if (path === '/v1/messages') {
    body = anthropicError(errorType(err.status), err.message);
  } else if (path.startsWith('/api/')) {
    body = { error: err.message };
  } else {
    body = { error: { message: err.message, type: errorType(err.status), code: err.code, ...err.extra } };
  }
  sendJson(res, err.status, body, err.headers);
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      throw new HttpError(413, `Request body exceeds ${MAX_BODY_BYTES} bytes`, 'too_large');
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new HttpError(400, `Malformed JSON body: ${(e as Error).message}`, 'invalid_json');
  }
}

/** The request body parsed by `schema`, or a 400 naming `what` and the issues. */
export async function readBody<S extends z.ZodType>(
  req: IncomingMessage,
  schema: S,
  what: string,
  code = 'invalid_request',
): Promise<z.infer<S>> {
  const parsed = schema.safeParse(await readJson(req));
  if (!parsed.success) {
    throw new HttpError(400, `${what}: ${formatIssues(parsed.error.issues)}`, code, {
      issues: parsed.error.issues,
    });
  }
  return parsed.data;
}

/** The bearer token (OpenAI, Ollama) or `x-api-key` (Anthropic) of a request. */
export function apiKeyOf(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  const bearer = typeof auth === 'string' ? /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim() : undefined;
  const header = req.headers['x-api-key'];
  return bearer || (typeof header === 'string' && header ? header : undefined);
}

export function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '') {
    return '127.0.0.1';
  }
  if (host === '::') {
    return '[::1]';
  }
  return host.includes(':') ? `[${host}]` : host;
}
