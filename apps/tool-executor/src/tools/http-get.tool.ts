import { type RunErrorCodes } from '@switchyard/contracts';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import { z } from 'zod';
import {
  type HostLookup,
  type ResolvedAddress,
  forbiddenAddressReason,
  normalizeHost,
  pinnedLookup,
  systemLookup,
} from '@switchyard/net-guard';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 1_000_000;
const DEFAULT_MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export const httpGetInputSchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/, error: 'must be an absolute http:// or https:// URL' })
      .describe('Absolute http:// or https:// URL to fetch.'),
    max_bytes: z
      .number()
      .int()
      .min(1)
      .max(5_000_000)
      .optional()
      .describe('Stop reading the body after this many bytes (the operator limit still applies).'),
  })
  .strict();
export type HttpGetInput = z.infer<typeof httpGetInputSchema>;

const { $schema: _schemaDialect, ...httpGetInputJsonSchema } = z.toJSONSchema(httpGetInputSchema, {
  io: 'input',
});

export const httpGetTool = {
  name: 'http_get',
  description:
    'Fetches a public http(s) URL with GET and returns the status, content type and the body as UTF-8 text ' +
    '(truncated past a size limit). Follows redirects. Private, loopback and link-local addresses are refused.',
  inputJsonSchema: httpGetInputJsonSchema,
  idempotent: true,
};

export type { HostLookup, ResolvedAddress } from '@switchyard/net-guard';
export { forbiddenAddressReason, pinnedLookup } from '@switchyard/net-guard';

export interface HttpGetOptions {
  signal?: AbortSignal;
  /** Budget for the whole fetch, redirects and body included. */
  timeoutMs?: number;
  /** Operator cap on the body; `max_bytes` of the input can only lower it. */
  maxBytes?: number;
  /** Hostnames or IPs (matched exactly, case-insensitively) that skip the address range check. */
  allowHosts?: readonly string[];
  maxRedirects?: number;
  /** Replaces the DNS lookup; for tests. */
  lookup?: HostLookup;
}

export interface HttpGetResult {
  url: string;
  final_url: string;
  status: number;
  content_type: string | null;
  body: string;
  truncated: boolean;
  bytes: number;
}

export type HttpGetErrorCode = RunErrorCodes<
  'forbidden_address' | 'invalid_url' | 'timeout' | 'too_many_redirects' | 'network_error' | 'aborted'
>;

/** A fetch that was refused or failed. Only network errors and timeouts are worth retrying. */
export class HttpGetError extends Error {
  readonly retryable: boolean;
  constructor(
    readonly code: HttpGetErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HttpGetError';
    this.retryable = code === 'network_error' || code === 'timeout';
  }
}

/** The URL for messages: credentials never reach logs or the model. */
function display(url: URL): string {
  if (!url.username && !url.password) {
    return url.href;
  }
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}

export function parseUrl(raw: string, base?: URL, context = ''): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new HttpGetError(
      'invalid_url',
      `invalid URL: ${JSON.stringify(raw)} is not a valid absolute URL${context}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HttpGetError(
      'invalid_url',
      `refusing to fetch ${display(url)}${context}: only http and https URLs are allowed`,
    );
  }
  if (url.username || url.password) {
    throw new HttpGetError(
      'invalid_url',
      `refusing to fetch ${display(url)}${context}: URLs with credentials are not allowed`,
    );
  }
  return url;
}

/** Rejects with the signal's reason once it aborts, so an unabortable step (DNS) cannot outlive the fetch. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Checks the URL's host and returns the addresses to connect to: the vetted DNS answers for a hostname
 * (pinned so a second, rebound lookup cannot swap them), or undefined for an IP literal.
 */
async function vetHost(
  url: URL,
  context: string,
  allowHosts: ReadonlySet<string>,
  lookup: HostLookup,
  signal: AbortSignal,
): Promise<ResolvedAddress[] | undefined> {
  const host = normalizeHost(url.hostname);
  const allowed = allowHosts.has(host);
  const refuse = (reason: string) =>
    new HttpGetError('forbidden_address', `refusing to fetch ${display(url)}${context}: ${reason}`);

  if (isIP(host)) {
    const reason = allowed ? undefined : forbiddenAddressReason(host);
    if (reason) {
      throw refuse(`${host} is ${reason}`);
    }
    return undefined;
  }
  if (!allowed && (host === 'localhost' || host.endsWith('.localhost'))) {
    throw refuse(`${host} is a loopback name`);
  }

  let answers: Awaited<ReturnType<HostLookup>>;
  try {
    answers = await untilAborted(lookup(url.hostname), signal);
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    throw new HttpGetError('network_error', `cannot resolve ${host}${context}: ${(error as Error).message}`);
  }
  // Trust the address text, not the family a custom lookup claims.
  const addresses = answers.map(({ address }) => ({ address, family: isIP(address) }));
  if (addresses.length === 0 || addresses.some((a) => a.family === 0)) {
    throw new HttpGetError('network_error', `cannot resolve ${host}${context}: no usable addresses`);
  }
  if (!allowed) {
    // One bad answer is enough: the connection could land on any of them.
    for (const { address } of addresses) {
      const reason = forbiddenAddressReason(address);
      if (reason) {
        throw refuse(`${host} resolves to ${address}, ${reason}`);
      }
    }
  }
  return addresses;
}

/** What goes on the wire besides the URL. */
export interface OutgoingRequest {
  method: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

function send(
  url: URL,
  addresses: ResolvedAddress[] | undefined,
  signal: AbortSignal,
  outgoing: OutgoingRequest,
): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      {
        protocol: url.protocol,
        // The hostname (not the address) so the Host header and TLS SNI/certificate check name the site.
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: outgoing.method,
        headers: {
          accept: '*/*',
          'user-agent': 'switchyard-http/1.0',
          ...outgoing.headers,
          'accept-encoding': 'identity',
          ...(outgoing.body ? { 'content-length': String(outgoing.body.length) } : {}),
        },
        // No pooling: a kept-alive socket would outlive this call's checks and options.
        agent: false,
        signal,
        ...(addresses ? { lookup: pinnedLookup(addresses) } : {}),
      },
      resolve,
    );
    request.on('error', reject);
    request.end(outgoing.body);
  });
}

async function readBody(
  response: http.IncomingMessage,
  maxBytes: number,
): Promise<{ body: string; bytes: number; truncated: boolean }> {
  const decoder = new TextDecoder('utf-8');
  let body = '';
  let bytes = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    const room = maxBytes - bytes;
    if (chunk.length > room) {
      const kept = chunk.subarray(0, room);
      bytes += kept.length;
      // Without a final flush a multi-byte character cut at the cap is dropped instead of mangled.
      body += decoder.decode(kept, { stream: true });
      response.destroy();
      return { body, bytes, truncated: true };
    }
    bytes += chunk.length;
    body += decoder.decode(chunk, { stream: true });
  }
  return { body: body + decoder.decode(), bytes, truncated: false };
}

/**
 * GETs a public URL, refusing (per hop, redirects included) any host that is or resolves to a non-public
 * address, and connecting only to the addresses that were checked. HTTP error statuses are results, not throws.
 */
export async function httpGet(input: HttpGetInput, opts: HttpGetOptions = {}): Promise<HttpGetResult> {
  // URL problems first, with their specific reasons; then the rest of the input.
  const start = parseUrl(input.url);
  const parsed = httpGetInputSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new HttpGetError('invalid_url', `invalid http_get input: ${issues}`);
  }
  const maxBytes = Math.min(parsed.data.max_bytes ?? Infinity, opts.maxBytes ?? DEFAULT_MAX_BYTES);

  return fetchSafely(start, { method: 'GET' }, { ...opts, maxBytes });
}

/**
 * Sends a request to a public URL, refusing (per hop, redirects included) any host that is or
 * resolves to a non-public address, and connecting only to the addresses that were checked.
 * HTTP error statuses are results, not throws.
 */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

function withoutCredentials(headers: OutgoingRequest['headers']): OutgoingRequest['headers'] {
  return Object.fromEntries(
    Object.entries(headers ?? {}).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())),
  );
}

export async function fetchSafely(
  start: URL,
  request: OutgoingRequest,
  opts: HttpGetOptions & { maxBytes: number },
): Promise<HttpGetResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const lookup = opts.lookup ?? systemLookup;
  const allowHosts = new Set((opts.allowHosts ?? []).map(normalizeHost));
  const maxBytes = opts.maxBytes;
  let outgoing = request;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout.signal]) : timeout.signal;
  let current = start;
  try {
    for (let redirects = 0; ; redirects++) {
      signal.throwIfAborted();
      const context = current === start ? '' : ` (redirected from ${display(start)})`;
      const addresses = await vetHost(current, context, allowHosts, lookup, signal);
      const response = await send(current, addresses, signal, outgoing);
      const location = response.headers.location;
      if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || !location) {
        const { body, bytes, truncated } = await readBody(response, maxBytes);
        return {
          url: start.href,
          final_url: current.href,
          status: response.statusCode ?? 0,
          content_type: response.headers['content-type'] ?? null,
          body,
          truncated,
          bytes,
        };
      }
      response.destroy();
      // 303 (and 301/302 after a non-GET, as browsers do) continue as a GET without the body;
      // 307/308 repeat the request as it was.
      const status = response.statusCode ?? 0;
      if (
        status === 303 ||
        ((status === 301 || status === 302) && !['GET', 'HEAD'].includes(outgoing.method))
      ) {
        outgoing = { method: 'GET', headers: outgoing.headers };
      }
      if (redirects >= maxRedirects) {
        throw new HttpGetError(
          'too_many_redirects',
          `refusing to fetch ${display(start)}: more than ${maxRedirects} redirects (last to ${location})`,
        );
      }
      const next = parseUrl(location, current, ` (redirected from ${display(start)})`);
      if (next.origin !== current.origin) {
        // Credentials meant for one origin never follow a redirect to another (as fetch does).
        outgoing = { ...outgoing, headers: withoutCredentials(outgoing.headers) };
      }
      current = next;
    }
  } catch (error) {
    if (error instanceof HttpGetError) {
      throw error;
    }
    // Which signal fired decides the code; the error itself is just Node's AbortError.
    if (opts.signal?.aborted) {
      throw new HttpGetError('aborted', `fetch of ${display(current)} was aborted`);
    }
    if (timeout.signal.aborted) {
      throw new HttpGetError('timeout', `fetch of ${display(current)} timed out after ${timeoutMs} ms`);
    }
    throw new HttpGetError(
      'network_error',
      `fetch of ${display(current)} failed: ${(error as Error).message}`,
    );
  } finally {
    clearTimeout(timer);
  }
}
