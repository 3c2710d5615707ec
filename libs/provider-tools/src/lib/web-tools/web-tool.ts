import { z } from 'zod';
import type { GuardedFetch } from '@switchyard/net-guard';
import { type WebChunk, formalizedContent } from '../kb-prompt';
import { requestJson } from '../provider-http';
import { ProviderErrorCode, ProviderException } from '../provider.exception';

/**
 * One of RAGFlow's web tools (agent/tools/*.py), run as a canvas component and offered to an
 * Agent: what the model is told, what the component reads from its params, and the call. Each
 * tool's base URL is settable by SWITCHYARD_PROVIDER_URL_<ENV NAME> (mirrors, proxies, tests);
 * every request goes through net-guard (SWITCHYARD_PROVIDER_ALLOW_HOSTS for non-public hosts).
 */
export interface WebToolSpec {
  /** RAGFlow's `component_name`. */
  component: string;
  /** The function name the model sees (RAGFlow's meta name; the Agent appends `_<index>`). */
  functionName: string;
  /** `SWITCHYARD_PROVIDER_URL_<envName>`. */
  envName: string;
  /** The real service; may hold `{param}` placeholders filled from the params (`{language}`). */
  defaultBaseUrl: string;
  /** The tenant provider key the call needs, if any (`PUT /v1/admin/tenants/:id/provider-keys/<key>`). */
  key?: { provider: string; required: boolean };
  description: string;
  /** RAGFlow's meta parameters, as the model sees them (a JSON Schema object). */
  parameters: Record<string, unknown>;
  /** The component's inputs and their defaults (RAGFlow's meta `default`, e.g. `{sys.query}`). */
  inputs: Record<string, unknown>;
  /** RAGFlow's param defaults (`top_n`, `language`, …), under the canvas's own params. */
  defaults: Record<string, unknown>;
  /**
   * What RAGFlow's `check()` refuses when a canvas loads, checked here when it is saved (a 400
   * naming the param): params that must be positive integers, must not be empty, or must be one
   * of a list. Checked on the params over the defaults; a reference (`{…}`) is left to run time.
   */
  checks?: ParamChecks;
  /** The call: the component's outputs and what the model reads as the tool's answer. */
  call(ctx: WebToolCall, args: Record<string, unknown>): Promise<WebToolResult>;
}

export interface ParamChecks {
  positiveInt?: readonly string[];
  required?: readonly string[];
  oneOf?: Readonly<Record<string, readonly string[]>>;
}

/** The canvas's params over the tool's defaults; a null param (RAGFlow's editor writes them) is unset. */
export function toolParams(
  spec: Pick<WebToolSpec, 'defaults'>,
  canvasParams: Record<string, unknown>,
): Record<string, unknown> {
  const params: Record<string, unknown> = { ...spec.defaults };
  for (const [k, v] of Object.entries(canvasParams)) {
    if (v !== null && v !== undefined) {
      params[k] = v;
    }
  }
  return params;
}

/** The params' problems under `checks` (RAGFlow's `check_positive_integer`, `check_empty`, `check_valid_value`). */
export function paramProblems(
  spec: Pick<WebToolSpec, 'defaults' | 'checks'>,
  canvasParams: Record<string, unknown>,
): { field: string; message: string }[] {
  const params = toolParams(spec, canvasParams);
  const isRef = (v: unknown) => typeof v === 'string' && /\{[^}]+\}/.test(v);
  const problems: { field: string; message: string }[] = [];
  for (const name of spec.checks?.positiveInt ?? []) {
    const v = params[name];
    if (!isRef(v) && !(Number.isInteger(Number(v)) && Number(v) > 0 && v !== '' && typeof v !== 'boolean')) {
      problems.push({ field: name, message: `${name} must be a positive integer` });
    }
  }
  for (const name of spec.checks?.required ?? []) {
    if (String(params[name] ?? '').trim() === '') {
      problems.push({ field: name, message: `${name} must be set` });
    }
  }
  for (const [name, allowed] of Object.entries(spec.checks?.oneOf ?? {})) {
    const v = params[name];
    if (!isRef(v) && !allowed.includes(String(v))) {
      problems.push({ field: name, message: `${name} must be one of ${allowed.join(', ')}` });
    }
  }
  return problems;
}

export interface WebToolCall {
  fetch: GuardedFetch;
  /** The base URL with the params' placeholders filled, without a trailing slash. */
  baseUrl: string;
  /** The tenant's active key for `spec.key`, when it has one. */
  apiKey?: string;
  /** The canvas's params over the tool's defaults. */
  params: Record<string, unknown>;
  signal?: AbortSignal;
  /**
   * For a tool that is not HTTP (Email's SMTP): the address to connect to for a host, checked
   * as `fetch` checks its hosts (SWITCHYARD_PROVIDER_ALLOW_HOSTS for non-public ones).
   */
  vetHost?: (host: string) => Promise<string>;
}

export interface WebToolResult {
  outputs: Record<string, unknown>;
  /** The text the model reads (RAGFlow returns `formalized_content` for most tools). */
  answer: string;
  summary: string;
}

/** The variable that moves a tool's base URL. */
export const webToolUrlVariable = (spec: Pick<WebToolSpec, 'envName'>): string =>
  `SWITCHYARD_PROVIDER_URL_${spec.envName}`;

const baseUrlSchema = z
  .string()
  .refine((v) => /^https?:\/\/[^/?#]+/.test(v), 'must be an http:// or https:// URL')
  .refine(
    (v) => !/[?#]/.test(v) && !/^https?:\/\/[^/]*@/.test(v),
    'must not carry credentials, a query or a fragment',
  )
  .transform((v) => v.replace(/\/+$/, ''));

/** Each tool's base URL from the environment (or its default); a bad one names its variable. */
export function webToolUrls(specs: readonly WebToolSpec[], env: NodeJS.ProcessEnv): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const spec of specs) {
    const name = webToolUrlVariable(spec);
    const raw = env[name];
    const parsed = baseUrlSchema.safeParse(raw === undefined || raw === '' ? spec.defaultBaseUrl : raw);
    if (!parsed.success) {
      throw new Error(`${name}: ${parsed.error.issues[0]?.message ?? 'invalid URL'}`);
    }
    urls[spec.component] = parsed.data;
  }
  return urls;
}

/** A base URL's `{param}` placeholders filled from the params (URL-encoded). */
export function fillBaseUrl(template: string, params: Record<string, unknown>): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, name: string) =>
    encodeURIComponent(String(params[name] ?? '')),
  );
}

/** GET (or any request) answered with JSON, failures as ProviderException naming the tool. */
export function getJson(
  ctx: WebToolCall,
  tool: string,
  url: string,
  init: RequestInit = {},
): Promise<unknown> {
  return requestJson(ctx.fetch, tool, url, { ...init, ...(ctx.signal ? { signal: ctx.signal } : {}) });
}

/** A request answered with text (XML, HTML), failures as ProviderException naming the tool. */
export async function getText(
  ctx: WebToolCall,
  tool: string,
  url: string,
  init: RequestInit = {},
): Promise<string> {
  let res: Response;
  try {
    res = await ctx.fetch(url, {
      ...init,
      redirect: 'manual',
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError' || ctx.signal?.aborted) {
      throw err;
    }
    throw new ProviderException(ProviderErrorCode.Network, `${tool}: ${(err as Error).message}`);
  }
  const text = await res.text();
  if (!res.ok) {
    throw new ProviderException(
      res.status === 429 || res.status >= 500 ? ProviderErrorCode.Unavailable : ProviderErrorCode.BadResponse,
      `${tool} answered ${res.status}${text ? `: ${text.slice(0, 300)}` : ''}`,
    );
  }
  return text;
}

/** The usual result of a search tool: its chunks as `formalized_content` (RAGFlow `_retrieve_chunks`). */
export function chunksResult(
  tool: string,
  chunks: readonly WebChunk[],
  extra: Record<string, unknown> = {},
): WebToolResult {
  const formalized = formalizedContent(chunks);
  return {
    outputs: { formalized_content: formalized, ...extra },
    answer: formalized,
    summary: `${tool}: ${chunks.length} result(s)`,
  };
}

/** RAGFlow's answer to an empty query: empty content, no call. */
export const emptyResult = (tool: string): WebToolResult => ({
  outputs: { formalized_content: '' },
  answer: '',
  summary: `${tool}: empty query, nothing searched`,
});

/** A positive integer param (RAGFlow `check_positive_integer`), else the error names it. */
export function positiveInt(params: Record<string, unknown>, name: string, tool: string): number {
  const v = Number(params[name]);
  if (!Number.isInteger(v) || v <= 0) {
    throw new ProviderException(
      ProviderErrorCode.InvalidInput,
      `${tool}: ${name} must be a positive integer`,
    );
  }
  return v;
}

/** The model-facing parameters and the input of a tool that takes one `query` (`{sys.query}` by default). */
export function queryTool(description: string): Pick<WebToolSpec, 'parameters' | 'inputs'> {
  return {
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description } },
      required: ['query'],
    },
    inputs: { query: '{sys.query}' },
  };
}

/** A provider's answer in the shape the tool reads, else a BadResponse saying what was missing. */
export function shapeOf<S extends z.ZodType>(schema: S, value: unknown, missing: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new ProviderException(ProviderErrorCode.BadResponse, missing);
  }
  return parsed.data;
}

/** An XML answer parsed (fast-xml-parser), else a BadResponse naming the tool. */
export function parsedXml(parser: { parse(xml: string): unknown }, xml: string, tool: string): unknown {
  try {
    return parser.parse(xml);
  } catch {
    throw new ProviderException(
      ProviderErrorCode.BadResponse,
      `${tool} answered with a body that is not XML`,
    );
  }
}
