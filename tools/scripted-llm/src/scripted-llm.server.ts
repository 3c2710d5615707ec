import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EmbeddingsRequestSchema, inputsOf, ollamaEmbeddings, openAiEmbeddings } from './embeddings';
import { HttpError, apiKeyOf, hostForUrl, readBody, sendError, sendJson } from './http';
import {
  ChatRequestSchema,
  DONE_FRAME,
  completionMeta,
  openAiChunkFrames,
  openAiCompletion,
  toConversation,
} from './openai-dialect';
import { RequestLog, type RequestRecord } from './request-log';
import { ScriptRunner } from './script-matching';
import { DEFAULT_MODELS, ScriptSchema, type Script } from './script.schema';
import { splitArguments, splitWords, writeFrames } from './streaming';
import {
  AnthropicRequestSchema,
  OllamaChatRequestSchema,
  OllamaEmbedRequestSchema,
  anthropicConversation,
  anthropicMessage,
  anthropicStreamEvents,
  ollamaChatFrames,
  ollamaConversation,
} from './vendor-dialects';

// An OpenAI-compatible model server whose replies come from a script, for tests and the offline demo.
// Plain node:http so it starts in milliseconds and behaves like the real API down to SSE framing.
// This file routes and runs the server; the parts are modules of their own: http.ts (bodies and
// errors), request-log.ts (GET /_requests), script-matching.ts (the rule that answers),
// streaming.ts (the frame writer), openai-dialect.ts and vendor-dialects.ts (the APIs' framings),
// embeddings.ts.

export type { RequestRecord } from './request-log';

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

const SSE = 'text/event-stream; charset=utf-8';

export async function startScriptedLlm(opts: ScriptedLlmOptions): Promise<ScriptedLlm> {
  const runner = new ScriptRunner(opts.script);
  const log = new RequestLog(opts.onRequest);
  const createdAt = Math.floor(Date.now() / 1000);

  const chatCompletions = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const body = await readBody(req, ChatRequestSchema, 'Invalid chat completion request');
    const stream = body.stream === true;
    const apiKey = apiKeyOf(req);
    const conv = toConversation(body, apiKey);
    const record = log.record(path, stream, body.messages.length, apiKey);
    const signal = log.track(res, record);
    const answer = await runner.answer(conv, record, signal, req);
    if (!answer) {
      return;
    }
    const meta = completionMeta(body.model ?? runner.script.models?.[0] ?? DEFAULT_MODELS[0]);
    if (!stream) {
      sendJson(res, 200, openAiCompletion(meta, answer.rendered));
      return;
    }
    const includeUsage = body.stream_options?.include_usage === true;
    const frames = openAiChunkFrames(meta, answer.rendered, includeUsage);
    await writeFrames(res, signal, SSE, frames, answer.chunkDelayMs, DONE_FRAME);
  };

  const anthropicMessages = async (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
  ): Promise<void> => {
    const body = await readBody(req, AnthropicRequestSchema, 'Invalid messages request');
    const stream = body.stream === true;
    const apiKey = apiKeyOf(req);
    const record = log.record(path, stream, body.messages.length, apiKey);
    const signal = log.track(res, record);
    const answer = await runner.answer(anthropicConversation(body, apiKey), record, signal, req);
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
      SSE,
      events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
      answer.chunkDelayMs,
    );
  };

  const ollamaChat = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const body = await readBody(req, OllamaChatRequestSchema, 'Invalid chat request');
    const stream = body.stream !== false;
    const apiKey = apiKeyOf(req);
    const record = log.record(path, stream, body.messages.length, apiKey);
    const signal = log.track(res, record);
    const answer = await runner.answer(ollamaConversation(body, apiKey), record, signal, req);
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

  const ollamaEmbed = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const body = await readBody(req, OllamaEmbedRequestSchema, 'Invalid embed request');
    log.track(res, log.record(path, false, inputsOf(body.input).length, apiKeyOf(req)));
    sendJson(res, 200, ollamaEmbeddings(runner.script, body));
  };

  const embeddings = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const body = await readBody(req, EmbeddingsRequestSchema, 'Invalid embeddings request');
    log.track(res, log.record(path, false, inputsOf(body.input).length, apiKeyOf(req)));
    sendJson(res, 200, openAiEmbeddings(runner.script, body));
  };

  const putScript = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const script = await readBody(req, ScriptSchema, 'invalid script', 'invalid_script');
    runner.setScript(script);
    sendJson(res, 200, { ok: true, rules: script.rules.map((r) => r.name) });
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
          data: (runner.script.models ?? DEFAULT_MODELS).map((id) => ({
            id,
            object: 'model',
            created: createdAt,
            owned_by: 'switchyard-scripted',
          })),
        });
      case 'GET /_requests':
        return sendJson(res, 200, log.requests);
      case 'DELETE /_requests':
        log.clear();
        return sendJson(res, 200, { ok: true });
      case 'GET /_script':
        return sendJson(res, 200, runner.script);
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
      log.close();
      server.close((err) => (err ? reject(err) : resolve()));
      // Keep-alive sockets from OpenAI clients would otherwise hold close() open.
      server.closeAllConnections();
    });
    return closed;
  };

  return {
    url: `http://${hostForUrl(host)}:${port}/v1`,
    port,
    requests: log.requests,
    setScript: (next) => runner.setScript(next),
    close,
  };
}
