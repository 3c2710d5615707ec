import { z } from 'zod';
import {
  HttpGetError,
  type HttpGetOptions,
  type HttpGetResult,
  fetchSafely,
  parseUrl,
} from './http-get.tool';

const DEFAULT_MAX_BYTES = 1_000_000;
// Set by the transport, or would let a caller smuggle a second request or another host.
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'te',
  'trailer',
]);

export const httpRequestInputSchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/, error: 'must be an absolute http:// or https:// URL' })
      .describe('Absolute http:// or https:// URL.'),
    method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
    headers: z
      .record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'not a header name'), z.string().max(8192))
      .optional()
      .describe('Request headers (Host, Content-Length and hop-by-hop headers are not allowed).'),
    body: z
      .union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])
      .optional()
      .describe('A string is sent as is; an object or array as JSON.'),
    timeout_ms: z.number().int().min(100).max(60_000).optional(),
    max_bytes: z.number().int().min(1).max(5_000_000).optional(),
  })
  .strict();
export type HttpRequestInput = z.input<typeof httpRequestInputSchema>;

const { $schema: _dialect, ...httpRequestInputJsonSchema } = z.toJSONSchema(httpRequestInputSchema, {
  io: 'input',
});

export const httpRequestTool = {
  name: 'http_request',
  description:
    'Sends an HTTP request (GET, HEAD, POST, PUT, PATCH, DELETE) with headers and a body to a public http(s) URL ' +
    'and returns the status, content type and body text (truncated past a size limit). Private, loopback and ' +
    'link-local addresses are refused.',
  inputJsonSchema: httpRequestInputJsonSchema,
  // POST and friends may change things: a redelivered task could send twice (the Idempotency-Key helps).
  idempotent: false,
};

export interface HttpRequestResult extends HttpGetResult {
  method: string;
}

/**
 * An SSRF-safe HTTP request (the same address checks as `http_get`, on every hop). A request that
 * is not GET/HEAD carries `Idempotency-Key` (the task id) unless the caller set one.
 */
export async function httpRequest(
  input: HttpRequestInput,
  opts: HttpGetOptions & { idempotencyKey?: string } = {},
): Promise<HttpRequestResult> {
  const start = parseUrl(input.url);
  const parsed = httpRequestInputSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new HttpGetError('invalid_url', `invalid http_request input: ${issues}`);
  }
  const args = parsed.data;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(args.headers ?? {})) {
    if (FORBIDDEN_HEADERS.has(name.toLowerCase())) {
      throw new HttpGetError('invalid_url', `invalid http_request input: header "${name}" may not be set`);
    }
    headers[name.toLowerCase()] = value;
  }
  let body: Buffer | undefined;
  if (args.body !== undefined) {
    if (args.method === 'GET' || args.method === 'HEAD') {
      throw new HttpGetError(
        'invalid_url',
        `invalid http_request input: a ${args.method} request has no body`,
      );
    }
    body = Buffer.from(typeof args.body === 'string' ? args.body : JSON.stringify(args.body), 'utf8');
    if (typeof args.body !== 'string' && !headers['content-type']) {
      headers['content-type'] = 'application/json';
    }
  }
  if (opts.idempotencyKey && !['GET', 'HEAD'].includes(args.method) && !headers['idempotency-key']) {
    headers['idempotency-key'] = opts.idempotencyKey;
  }
  const maxBytes = Math.min(args.max_bytes ?? Infinity, opts.maxBytes ?? DEFAULT_MAX_BYTES);
  const timeoutMs = Math.min(args.timeout_ms ?? Infinity, opts.timeoutMs ?? 10_000);
  const result = await fetchSafely(
    start,
    { method: args.method, headers, body },
    { ...opts, maxBytes, timeoutMs },
  );
  return { ...result, method: args.method };
}
