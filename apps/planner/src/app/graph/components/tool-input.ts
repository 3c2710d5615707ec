import { type VariableScope, renderTemplate, resolveParam, templateSegments } from '@switchyard/graph';

const asText = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);

/**
 * A tool component's input (RAGFlow `ToolBase.get_input`): a param that is one whole reference
 * is its value, a text with references is rendered, anything else is taken as written; a param
 * the DSL leaves out takes the tool's default (`{sys.query}` for the query-like ones).
 */
export function toolInput(
  scope: VariableScope,
  params: Record<string, unknown>,
  name: string,
  fallback: unknown,
): unknown {
  const raw = params[name] ?? fallback;
  const value = resolveParam(scope, raw);
  if (value !== raw || typeof raw !== 'string' || !templateSegments(raw).some((s) => 'ref' in s)) {
    return value;
  }
  return renderTemplate(scope, raw, asText);
}
