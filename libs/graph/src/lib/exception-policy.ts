import { componentsWith } from './components';
// RAGFlow's exception policy (agent/component/base.py `exception_handler`,
// `get_exception_default_value`; agent/canvas.py after each component): what a component's
// failure does to the run, from its params `exception_method`, `exception_default_value` and
// `exception_goto`.

/** Components that catch their own failure and record `_ERROR` (so a default is not `result`). */
const SELF_CATCHING = componentsWith('selfCatching');
/** Components whose default value stands in for their `content` (LLM, Agent). */
const CONTENT_DEFAULT = new Set(['LLM', 'Agent']);

export type ExceptionOutcome =
  /** The default value replaces the failed output; the canvas goes on as if nothing failed. */
  | { kind: 'default'; outputs: Record<string, unknown> }
  /** `_ERROR` is set, the default value is shown as a message, and the canvas goes on. */
  | { kind: 'message'; outputs: Record<string, unknown>; message: string }
  /** `_ERROR` is set and the canvas continues at `exception_goto` instead of the successors. */
  | { kind: 'goto'; outputs: Record<string, unknown>; next: string[] }
  /** `_ERROR` is set and the run stops with the error (RAGFlow's default). */
  | { kind: 'fail'; outputs: Record<string, unknown> };

const truthy = (v: unknown): boolean =>
  v !== null && v !== undefined && v !== '' && v !== false && v !== 0 && !(Array.isArray(v) && !v.length);

/** What the failure of `component` (RAGFlow component name) with `params` does. */
export function exceptionOutcome(
  component: string,
  params: Record<string, unknown>,
  error: string,
): ExceptionOutcome {
  const method = params['exception_method'];
  const defaultValue = params['exception_default_value'];
  const goto = Array.isArray(params['exception_goto'])
    ? (params['exception_goto'] as unknown[]).filter(
        (id): id is string => typeof id === 'string' && id !== '',
      )
    : [];
  // `comment` with a default: the component itself writes the default instead of an error.
  if (method === 'comment' && truthy(defaultValue) && !SELF_CATCHING.has(component)) {
    return {
      kind: 'default',
      outputs: CONTENT_DEFAULT.has(component) ? { content: defaultValue } : { result: defaultValue },
    };
  }
  const outputs = { _ERROR: error };
  if (truthy(method) && goto.length) {
    return { kind: 'goto', outputs, next: goto };
  }
  if (truthy(method) && truthy(defaultValue)) {
    return {
      kind: 'message',
      outputs,
      message: typeof defaultValue === 'string' ? defaultValue : JSON.stringify(defaultValue),
    };
  }
  return { kind: 'fail', outputs };
}
