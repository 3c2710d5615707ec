import { GraphErrorCode, GraphException } from './graph.exception';
import { type VariableScope, getVariableValue, renderTemplate, templateSegments } from './variable-ref';

// The request RAGFlow's Invoke component (agent/component/invoke.py) sends, built from its params:
// `url` (a template; `http://` added without a scheme), `method` get/post/put,
// `variables: [{key, ref | value}]`, `headers` (a JSON object whose strings may hold `{token}`
// placeholders), `timeout` (seconds, default 60), `clean_html`, `datatype` json/formdata.

export interface InvokeRequest {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  /** GET: the query arguments; POST/PUT: the body (JSON or form fields). */
  args: Record<string, unknown>;
  datatype: 'json' | 'formdata';
  timeoutMs: number;
  cleanHtml: boolean;
}

const fail = (message: string) => new GraphException(GraphErrorCode.ComponentFailed, message);

// Invoke's own stringification: str(value), None as "".
const asText = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);

/** Values a reference has, or undefined for one that names nothing (RAGFlow: None). */
function lookup(scope: VariableScope, ref: string): unknown {
  try {
    return getVariableValue(scope, ref);
  } catch {
    return undefined;
  }
}

function argValue(scope: VariableScope, para: Record<string, unknown>): unknown {
  const ref = typeof para['ref'] === 'string' ? para['ref'].trim() : '';
  const refValue = ref ? lookup(scope, ref) : undefined;
  if (ref && refValue !== undefined && refValue !== null) {
    return refValue;
  }
  const value = para['value'];
  if (value !== undefined && value !== null) {
    return typeof value === 'string' ? renderTemplate(scope, value, asText, false) : value;
  }
  return '';
}

/** JSON mode: a string argument that is JSON becomes that value. */
function coerceJson(value: unknown): unknown {
  if (typeof value !== 'string') {
    return value;
  }
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Header values: `{token}` placeholders (any variable name, `cpn@var` included) are replaced. */
function headerText(scope: VariableScope, text: string): string {
  return text.replace(/\{([a-zA-Z_][a-zA-Z0-9_.@-]*)\}/g, (_m, name: string) => asText(lookup(scope, name)));
}

export function invokeRequest(scope: VariableScope, params: Record<string, unknown>): InvokeRequest {
  const method = String(params['method'] ?? 'get').toLowerCase();
  if (!['get', 'post', 'put'].includes(method)) {
    throw fail(`method ${method} is not supported, it should be in get, post, put`);
  }
  const datatype = String(params['datatype'] ?? 'json').toLowerCase();
  if (datatype !== 'json' && datatype !== 'formdata') {
    throw fail(`datatype ${datatype} is not supported, it should be in json, formdata`);
  }
  const rawUrl = String(params['url'] ?? '').trim();
  if (!rawUrl) {
    throw fail('End point URL does not support empty value.');
  }
  const timeout = params['timeout'] ?? 60;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0) {
    throw fail(`Timeout time in second ${String(timeout)} not supported, should be positive integer`);
  }
  // Only `{…}` references are templated in the URL (a bare `sys.query` stays literal).
  let url = templateSegments(rawUrl, true)
    .map((s) => ('text' in s ? s.text : asText(lookup(scope, s.ref))))
    .join('');
  if (!/^https?:\/\//.test(url)) {
    url = `http://${url}`;
  }
  const args: Record<string, unknown> = {};
  for (const para of Array.isArray(params['variables']) ? params['variables'] : []) {
    if (!para || typeof para !== 'object' || typeof (para as { key?: unknown }).key !== 'string') {
      throw fail('every entry of variables needs a key');
    }
    const p = para as Record<string, unknown>;
    const value = argValue(scope, p);
    args[p['key'] as string] = datatype === 'json' ? coerceJson(value) : value;
  }
  const headers: Record<string, string> = {};
  const rawHeaders = params['headers'];
  if (typeof rawHeaders === 'string' && rawHeaders.trim()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawHeaders);
    } catch {
      throw fail('Invoke headers must be a JSON object.');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw fail('Invoke headers must be a JSON object.');
    }
    for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
      headers[k] = typeof v === 'string' ? headerText(scope, v) : asText(v);
    }
  }
  return {
    method: method.toUpperCase() as InvokeRequest['method'],
    url,
    headers,
    args,
    datatype,
    timeoutMs: timeout * 1000,
    cleanHtml: params['clean_html'] === true,
  };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * Invoke's `clean_html`: the text of an HTML page, one line per block, scripts and styles left
 * out (RAGFlow uses its HtmlParser; this keeps the same intent: text for a prompt).
 */
export function htmlText(html: string): string {
  return html
    .replace(/<(script|style|noscript|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(br|\/p|\/div|\/li|\/h[1-6]|\/tr|\/title)\b[^>]*>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) =>
      e[0] === '#'
        ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
        : (ENTITIES[e.toLowerCase()] ?? m),
    )
    .split('\n')
    .map((l) => l.replace(/[ \t\r\f\v]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}
