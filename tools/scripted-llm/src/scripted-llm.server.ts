import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { embeddingToBase64, hashEmbedding } from './hash-embedding';
import {
  contentText,
  lastUserText,
  pickRule,
  renderReply,
  shapeForRequest,
  wordCount,
  type Conversation,
  type NativeJson,
  type RenderedReply,
} from './script.engine';
import {
  DEFAULT_EMBEDDING_DIMENSIONS,
  DEFAULT_MODELS,
  formatIssues,
  parseScript,
  ScriptSchema,
  type Script,
} from './script.schema';
import {
  AnthropicRequestSchema,
  OllamaChatRequestSchema,
  OllamaEmbedRequestSchema,
  anthropicConversation,
  anthropicError,
  anthropicMessage,
  anthropicStreamEvents,
  ollamaChatFrames,
  ollamaConversation,
} from './vendor-dialects';

// An OpenAI-compatible model server whose replies come from a script, for tests and the offline demo.
// Plain node:http so it starts in milliseconds and behaves like the real API down to SSE framing.

export interface RequestRecord {
  /** `req_1`, `req_2`, … in arrival order. */
  id: string;
  /** Arrival time (ISO). */
  at: string;
  path: string;
  /** Name of the rule that answered, or null (no rule matched, or not a chat request). */
  rule: string | null;
  stream: boolean;
  /** The client closed the connection before the reply finished. */
  aborted: boolean;
  aborted_after_ms?: number;
  /** Chat: number of messages; embeddings: number of inputs. */
  messages_count: number;
  /** HTTP status of the reply, set once the exchange is over. */
  status?: number;
  /**
   * First 12 hex digits of the SHA-256 of the API key the request carried (what SecretBox.fingerprint
   * gives), or null without one: tests see which key was used, the key itself is never recorded.
   */
  api_key_fingerprint: string | null;
  /** How the request asked for JSON natively (`json_schema`, `json_object`, `tool`, `format`, `output_format`), or null. */
  native_json: NativeJson['via'] | null;
  /** The JSON Schema the request sent natively (null: none), and OpenAI's `strict` flag for it. */
  native_schema: unknown;
  native_strict: boolean | null;
  /** Whether strict mode applied to the request (the script's `strict`, or `x-scripted-strict`). */
  strict: boolean;
  /** The request's system prompt (first 4000 characters), so tests can check what was asked. */
  system: string;
}

export interface ScriptedLlmOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  script: Script;
  /** Called once per recorded request when its exchange is over (finished or aborted). */
  onRequest?: (record: RequestRecord) => void;
}

export interface ScriptedLlm {
  /** Base URL for OpenAI clients, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  port: number;
  /** Live list of chat/embeddings requests (same array that GET /_requests returns; cleared in place). */
  requests: RequestRecord[];
  /** Replaces the script (validated) and resets every rule's `times` counter. */
  setScript(script: Script): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;
// Oldest records are dropped past this so a long-running demo server does not grow without bound.
const MAX_RECORDS = 10_000;
const DEFAULT_CHUNK_DELAY_MS = 5;
const SYSTEM_FINGERPRINT = 'fp_scripted';

class HttpError extends Error {
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

const ChatRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown().optional() })).min(1),
  tools: z
    .array(
      z.looseObject({
        name: z.string().optional(),
        function: z.looseObject({ name: z.string() }).optional(),
      }),
    )
    .nullish(),
  functions: z.array(z.looseObject({ name: z.string() })).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
});
type ChatRequest = z.infer<typeof ChatRequestSchema>;

const EmbeddingsRequestSchema = z.looseObject({
  model: z.string().optional(),
  input: z.union([z.string(), z.array(z.string()).min(1)]),
  dimensions: z.number().int().min(1).max(8192).nullish(),
  encoding_format: z.enum(['float', 'base64']).nullish(),
});

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

function sendJson(
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
function sendError(res: ServerResponse, err: HttpError, path = ''): void {
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

async function readJson(req: IncomingMessage): Promise<unknown> {
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

function invalidRequest(issues: readonly z.core.$ZodIssue[], what: string, code: string): HttpError {
  return new HttpError(400, `${what}: ${formatIssues(issues)}`, code, { issues });
}

/** Resolves after `ms`, or as soon as `signal` aborts; callers check `signal.aborted` afterwards. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Word-sized pieces that keep their whitespace, so joining them gives back `text` exactly. */
export function splitWords(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/).filter((piece) => piece !== '');
}

/** At least two pieces (for any string of 2+ chars), like OpenAI's streamed tool-call arguments. */
function splitArguments(json: string): string[] {
  const size = Math.max(1, Math.min(12, Math.ceil(json.length / 2)));
  const pieces: string[] = [];
  for (let i = 0; i < json.length; i += size) {
    pieces.push(json.slice(i, i + size));
  }
  return pieces;
}

/** The bearer token (OpenAI, Ollama) or `x-api-key` (Anthropic) of a request. */
function apiKeyOf(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  const bearer = typeof auth === 'string' ? /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim() : undefined;
  const header = req.headers['x-api-key'];
  return bearer || (typeof header === 'string' && header ? header : undefined);
}

export function keyFingerprint(key: string | undefined): string | null {
  return key ? createHash('sha256').update(key).digest('hex').slice(0, 12) : null;
}

function toConversation(body: ChatRequest, apiKey?: string): Conversation {
  const toolNames = [
    ...(body.tools ?? []).map((t) => t.function?.name ?? t.name),
    ...(body.functions ?? []).map((f) => f.name),
  ].filter((name): name is string => typeof name === 'string');
  const native = openAiNativeJson(body, toolNames);
  return {
    messages: body.messages.map((m) => ({ role: m.role, text: contentText(m.content) })),
    toolNames,
    ...(native ? { native } : {}),
    ...(apiKey ? { apiKey } : {}),
  };
}

/** `response_format` json_schema / json_object, or a forced function (`tool_choice`, legacy `function_call`). */
function openAiNativeJson(body: ChatRequest, toolNames: string[]): NativeJson | undefined {
  const format = body['response_format'] as
    { type?: string; json_schema?: { schema?: unknown; strict?: boolean | null } } | null | undefined;
  if (format?.type === 'json_schema') {
    const { schema, strict } = format.json_schema ?? {};
    return { via: 'json_schema', schema, ...(typeof strict === 'boolean' ? { strict } : {}) };
  }
  if (format?.type === 'json_object') {
    return { via: 'json_object' };
  }
  const choice = body['tool_choice'] as { function?: { name?: string } } | string | null | undefined;
  const legacy = body['function_call'] as { name?: string } | string | null | undefined;
  const forced =
    typeof choice === 'object' && choice?.function?.name
      ? choice.function.name
      : choice === 'required' && toolNames.length === 1
        ? toolNames[0]
        : typeof legacy === 'object' && legacy?.name
          ? legacy.name
          : undefined;
  if (!forced) {
    return undefined;
  }
  const fn = [...(body.tools ?? []).map((t) => t.function), ...(body.functions ?? [])].find(
    (f) => f?.name === forced,
  ) as { parameters?: unknown; strict?: boolean | null } | undefined;
  return {
    via: 'tool',
    tool: forced,
    schema: fn?.parameters,
    ...(typeof fn?.strict === 'boolean' ? { strict: fn.strict } : {}),
  };
}

/** The script's `strict`, unless the request's `x-scripted-strict` header says otherwise. */
function strictFor(req: IncomingMessage, script: Script): boolean {
  const header = req.headers['x-scripted-strict'];
  if (header === '1' || header === 'true') {
    return true;
  }
  if (header === '0' || header === 'false') {
    return false;
  }
  return script.strict === true;
}

function systemOf(conv: Conversation): string {
  return conv.messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => m.text)
    .join('\n')
    .slice(0, 4000);
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '') {
    return '127.0.0.1';
  }
  if (host === '::') {
    return '[::1]';
  }
  return host.includes(':') ? `[${host}]` : host;
}

export async function startScriptedLlm(opts: ScriptedLlmOptions): Promise<ScriptedLlm> {
  let script = parseScript(opts.script);
  // Uses per rule index, for `times`; reset whenever the script changes.
  let used: number[] = [];
  const requests: RequestRecord[] = [];
  const inFlight = new Set<AbortController>();
  const createdAt = Math.floor(Date.now() / 1000);
  let seq = 0;
  let closing = false;

  const setScript = (next: Script): void => {
    script = parseScript(next);
    used = [];
  };

  /** Records the exchange and returns a signal that fires if the client goes away (or the server closes). */
  const track = (res: ServerResponse, record: RequestRecord): AbortSignal => {
    const started = Date.now();
    const controller = new AbortController();
    inFlight.add(controller);
    requests.push(record);
    if (requests.length > MAX_RECORDS) {
      requests.splice(0, requests.length - MAX_RECORDS);
    }
    res.on('close', () => {
      inFlight.delete(controller);
      if (!res.writableFinished && !closing) {
        record.aborted = true;
        record.aborted_after_ms = Date.now() - started;
      }
      if (res.headersSent) {
        record.status = res.statusCode;
      }
      controller.abort();
      opts.onRequest?.(record);
    });
    return controller.signal;
  };

  const newRecord = (
    path: string,
    stream: boolean,
    count: number,
    apiKey: string | undefined,
  ): RequestRecord => ({
    id: `req_${++seq}`,
    at: new Date().toISOString(),
    path,
    rule: null,
    stream,
    aborted: false,
    messages_count: count,
    api_key_fingerprint: keyFingerprint(apiKey),
    native_json: null,
    native_schema: null,
    native_strict: null,
    strict: false,
    system: '',
  });

  /**
   * Answers a conversation by the script: picks the rule, waits its delay, throws its error status
   * (with Retry-After), else renders the reply. Undefined when the client went away meanwhile.
   */
  const runScript = async (
    conv: Conversation,
    record: RequestRecord,
    signal: AbortSignal,
    req: IncomingMessage,
  ): Promise<{ rendered: RenderedReply; chunkDelayMs: number } | undefined> => {
    const strict = strictFor(req, script);
    record.native_json = conv.native?.via ?? null;
    record.native_schema = conv.native?.schema ?? null;
    record.native_strict = conv.native?.strict ?? null;
    record.strict = strict;
    record.system = systemOf(conv);
    const rule = pickRule(script, used, conv);
    if (!rule) {
      const user = lastUserText(conv);
      const shown =
        user === undefined ? 'none' : JSON.stringify(user.length > 300 ? `${user.slice(0, 300)}…` : user);
      throw new HttpError(
        500,
        `scripted-llm: no rule matched (last user message: ${shown})`,
        'no_rule_matched',
      );
    }
    record.rule = rule.name;
    const reply = rule.reply;
    await sleep(reply.delay_ms ?? 0, signal);
    if (signal.aborted) {
      return;
    }

    if (reply.status !== undefined) {
      const message =
        reply.error_message ?? `scripted-llm: rule "${rule.name}" replies with status ${reply.status}`;
      const headers: Record<string, string> = {};
      if (reply.retry_after !== undefined) {
        headers['retry-after'] = String(reply.retry_after);
      }
      throw new HttpError(reply.status, message, `scripted_${reply.status}`, {}, headers);
    }
    return {
      rendered: shapeForRequest(renderReply(reply, conv), conv, strict),
      chunkDelayMs: reply.chunk_delay_ms ?? DEFAULT_CHUNK_DELAY_MS,
    };
  };

  const chatCompletions = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const parsed = ChatRequestSchema.safeParse(await readJson(req));
    if (!parsed.success) {
      throw invalidRequest(parsed.error.issues, 'Invalid chat completion request', 'invalid_request');
    }
    const body = parsed.data;
    const stream = body.stream === true;
    const apiKey = apiKeyOf(req);
    const conv = toConversation(body, apiKey);
    const record = newRecord(path, stream, body.messages.length, apiKey);
    const signal = track(res, record);
    const answer = await runScript(conv, record, signal, req);
    if (!answer) {
      return;
    }
    const { rendered, chunkDelayMs } = answer;
    const meta = {
      id: `chatcmpl-${randomBytes(12).toString('hex')}`,
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? script.models?.[0] ?? DEFAULT_MODELS[0],
    };
    if (stream) {
      const includeUsage = body.stream_options?.include_usage === true;
      await streamCompletion(res, signal, meta, rendered, includeUsage, chunkDelayMs);
    } else {
      sendJson(res, 200, {
        ...meta,
        object: 'chat.completion',
        system_fingerprint: SYSTEM_FINGERPRINT,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: rendered.content,
              refusal: null,
              ...(rendered.toolCalls.length
                ? {
                    tool_calls: rendered.toolCalls.map((call) => ({
                      id: toolCallId(),
                      type: 'function',
                      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                    })),
                  }
                : {}),
            },
            logprobs: null,
            finish_reason: rendered.toolCalls.length ? 'tool_calls' : 'stop',
          },
        ],
        usage: rendered.usage,
      });
    }
  };

  /** Writes frames one by one with the rule's delay between them; false when the client went away. */
  const writeFrames = async (
    res: ServerResponse,
    signal: AbortSignal,
    contentType: string,
    frames: string[],
    chunkDelayMs: number,
  ): Promise<void> => {
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
    for (const [i, frame] of frames.entries()) {
      if (i > 0) {
        await sleep(chunkDelayMs, signal);
      }
      if (signal.aborted) {
        return;
      }
      res.write(frame);
    }
    res.end();
  };

  const anthropicMessages = async (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
  ): Promise<void> => {
    const parsed = AnthropicRequestSchema.safeParse(await readJson(req));
    if (!parsed.success) {
      throw invalidRequest(parsed.error.issues, 'Invalid messages request', 'invalid_request');
    }
    const body = parsed.data;
    const stream = body.stream === true;
    const apiKey = apiKeyOf(req);
    const record = newRecord(path, stream, body.messages.length, apiKey);
    const signal = track(res, record);
    const answer = await runScript(anthropicConversation(body, apiKey), record, signal, req);
    if (!answer) {
      return;
    }
    if (!stream) {
      sendJson(res, 200, anthropicMessage(answer.rendered, body.model));
      return;
    }
    const events = anthropicStreamEvents(answer.rendered, body.model, splitWords, splitArguments);
    await writeFrames(
      res,
      signal,
      'text/event-stream; charset=utf-8',
      events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
      answer.chunkDelayMs,
    );
  };

  const ollamaChat = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const parsed = OllamaChatRequestSchema.safeParse(await readJson(req));
    if (!parsed.success) {
      throw invalidRequest(parsed.error.issues, 'Invalid chat request', 'invalid_request');
    }
    const body = parsed.data;
    const stream = body.stream !== false;
    const apiKey = apiKeyOf(req);
    const record = newRecord(path, stream, body.messages.length, apiKey);
    const signal = track(res, record);
    const answer = await runScript(ollamaConversation(body, apiKey), record, signal, req);
    if (!answer) {
      return;
    }
    const frames = ollamaChatFrames(answer.rendered, body.model, stream, splitWords);
    if (!stream) {
      sendJson(res, 200, frames[0]);
      return;
    }
    await writeFrames(
      res,
      signal,
      'application/x-ndjson',
      frames.map((f) => `${JSON.stringify(f)}\n`),
      answer.chunkDelayMs,
    );
  };

  /** A scripted input's vector, else the hash embedding (of the scripted vectors' size, if any). */
  const vectorFor = (text: string, asked?: number): number[] => {
    const scripted = script.embeddings?.vectors ?? {};
    if (Object.hasOwn(scripted, text)) {
      return scripted[text];
    }
    const size = Object.values(scripted)[0]?.length;
    return hashEmbedding(
      text,
      asked ?? script.embeddings?.dimensions ?? size ?? DEFAULT_EMBEDDING_DIMENSIONS,
    );
  };

  const ollamaEmbed = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const parsed = OllamaEmbedRequestSchema.safeParse(await readJson(req));
    if (!parsed.success) {
      throw invalidRequest(parsed.error.issues, 'Invalid embed request', 'invalid_request');
    }
    const inputs = typeof parsed.data.input === 'string' ? [parsed.data.input] : parsed.data.input;
    track(res, newRecord(path, false, inputs.length, apiKeyOf(req)));
    sendJson(res, 200, {
      model: parsed.data.model,
      embeddings: inputs.map((text) => vectorFor(text)),
      prompt_eval_count: inputs.reduce((sum, text) => sum + wordCount(text), 0),
    });
  };

  const embeddings = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const parsed = EmbeddingsRequestSchema.safeParse(await readJson(req));
    if (!parsed.success) {
      throw invalidRequest(parsed.error.issues, 'Invalid embeddings request', 'invalid_request');
    }
    const body = parsed.data;
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    track(res, newRecord(path, false, inputs.length, apiKeyOf(req)));
    const tokens = inputs.reduce((sum, text) => sum + wordCount(text), 0);
    sendJson(res, 200, {
      object: 'list',
      data: inputs.map((text, index) => {
        const vector = vectorFor(text, body.dimensions ?? undefined);
        return {
          object: 'embedding',
          index,
          embedding: body.encoding_format === 'base64' ? embeddingToBase64(vector) : vector,
        };
      }),
      model: body.model ?? 'scripted-embeddings',
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  };

  const putScript = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const parsed = ScriptSchema.safeParse(await readJson(req));
    if (!parsed.success) {
      throw invalidRequest(parsed.error.issues, 'invalid script', 'invalid_script');
    }
    setScript(parsed.data);
    sendJson(res, 200, { ok: true, rules: parsed.data.rules.map((r) => r.name) });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://scripted-llm').pathname;
    switch (`${req.method} ${path}`) {
      case 'POST /v1/chat/completions':
        return chatCompletions(req, res, path);
      case 'POST /v1/embeddings':
        return embeddings(req, res, path);
      case 'POST /v1/messages':
        return anthropicMessages(req, res, path);
      case 'POST /api/chat':
        return ollamaChat(req, res, path);
      case 'POST /api/embed':
        return ollamaEmbed(req, res, path);
      case 'GET /v1/models':
        return sendJson(res, 200, {
          object: 'list',
          data: (script.models ?? DEFAULT_MODELS).map((id) => ({
            id,
            object: 'model',
            created: createdAt,
            owned_by: 'switchyard-scripted',
          })),
        });
      case 'GET /_requests':
        return sendJson(res, 200, requests);
      case 'DELETE /_requests':
        requests.length = 0;
        return sendJson(res, 200, { ok: true });
      case 'GET /_script':
        return sendJson(res, 200, script);
      case 'PUT /_script':
        return putScript(req, res);
      default:
        throw new HttpError(404, `scripted-llm: no route for ${req.method} ${path}`, 'not_found');
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      const err =
        e instanceof HttpError ? e : new HttpError(500, `scripted-llm: ${String(e)}`, 'internal_error');
      sendError(res, err, new URL(req.url ?? '/', 'http://scripted-llm').pathname);
    });
  });

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve, reject) => {
      closing = true;
      for (const controller of inFlight) {
        controller.abort();
      }
      server.close((err) => (err ? reject(err) : resolve()));
      // Keep-alive sockets from OpenAI clients would otherwise hold close() open.
      server.closeAllConnections();
    });
    return closed;
  };

  return { url: `http://${hostForUrl(host)}:${port}/v1`, port, requests, setScript, close };
}

function toolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

/** SSE in OpenAI's framing: role chunk, content pieces, tool-call pieces, finish chunk, usage chunk, [DONE]. */
async function streamCompletion(
  res: ServerResponse,
  signal: AbortSignal,
  meta: CompletionMeta,
  rendered: RenderedReply,
  includeUsage: boolean,
  chunkDelayMs: number,
): Promise<void> {
  const choice = (delta: Record<string, unknown>, finishReason: string | null = null) => [
    { index: 0, delta, logprobs: null, finish_reason: finishReason },
  ];
  const frames: Record<string, unknown>[] = [
    { choices: choice({ role: 'assistant', content: '', refusal: null }) },
  ];
  for (const piece of splitWords(rendered.content ?? '')) {
    frames.push({ choices: choice({ content: piece }) });
  }
  rendered.toolCalls.forEach((call, index) => {
    // Like OpenAI: id, type and name in the first delta of each call, then the arguments in pieces.
    frames.push({
      choices: choice({
        tool_calls: [
          { index, id: toolCallId(), type: 'function', function: { name: call.name, arguments: '' } },
        ],
      }),
    });
    for (const piece of splitArguments(JSON.stringify(call.arguments))) {
      frames.push({ choices: choice({ tool_calls: [{ index, function: { arguments: piece } }] }) });
    }
  });
  frames.push({ choices: choice({}, rendered.toolCalls.length ? 'tool_calls' : 'stop') });
  if (includeUsage) {
    frames.push({ choices: [], usage: rendered.usage });
  }

  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  for (const [i, frame] of frames.entries()) {
    if (i > 0) {
      await sleep(chunkDelayMs, signal);
    }
    if (signal.aborted) {
      return;
    }
    const chunk = {
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      system_fingerprint: SYSTEM_FINGERPRINT,
      // OpenAI sends usage: null on every chunk but the last when usage was asked for.
      ...(includeUsage ? { usage: null } : {}),
      ...frame,
    };
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  await sleep(chunkDelayMs, signal);
  if (signal.aborted) {
    return;
  }
  res.end('data: [DONE]\n\n');
}
