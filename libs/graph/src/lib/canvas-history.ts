import { pyRepr } from './py-value';

// RAGFlow's canvas history (`Canvas.history`): ("user", query) when a turn starts and
// ("assistant", the last component's outputs) when it finishes; `sys.history` holds the same as
// "role: value" lines. Switchyard keeps the entries in the hidden global `_history` (references
// reach only `sys.*`/`env.*`, so a DSL cannot see it) next to RAGFlow's `sys.history` lines.

export const HISTORY_GLOBAL = '_history';

export interface HistoryEntry {
  role: string;
  content: string;
}

/** The canvas history a state holds: `_history`, or `sys.history` lines in states written before it. */
export function canvasHistory(globals: Readonly<Record<string, unknown>>): HistoryEntry[] {
  const kept = globals[HISTORY_GLOBAL];
  if (Array.isArray(kept)) {
    return kept.map((e) => ({
      role: String((e as HistoryEntry).role),
      content: String((e as HistoryEntry).content ?? ''),
    }));
  }
  const lines = globals['sys.history'];
  return (Array.isArray(lines) ? lines.map(String) : []).map((line) => {
    const at = line.indexOf(': ');
    return at < 0
      ? { role: 'user', content: line }
      : { role: line.slice(0, at), content: line.slice(at + 2) };
  });
}

/**
 * The globals after a turn's Begin: the previous turn's answer (its last component's outputs,
 * when that turn finished) and this turn's query appended, as RAGFlow's canvas does.
 */
export function historyAtTurnStart(
  globals: Record<string, unknown>,
  query: string,
  previousAnswer?: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const entries = canvasHistory(globals);
  const lines = Array.isArray(globals['sys.history']) ? [...(globals['sys.history'] as unknown[])] : [];
  if (previousAnswer) {
    const content = previousAnswer['content'];
    entries.push({ role: 'assistant', content: typeof content === 'string' ? content : '' });
    lines.push(`assistant: ${pyRepr(previousAnswer)}`);
  }
  entries.push({ role: 'user', content: query });
  lines.push(`user: ${query}`);
  return { ...globals, [HISTORY_GLOBAL]: entries, 'sys.history': lines };
}

/**
 * RAGFlow's `get_history(window)`: the last `2 × window` entries, after one empty user entry per
 * resume of a paused run (how RAGFlow records a form being sent); none for a window of 0.
 */
export function historyWindow(
  history: readonly HistoryEntry[],
  resumes: number,
  window: number,
): HistoryEntry[] {
  const entries = [...history, ...Array.from({ length: resumes }, () => ({ role: 'user', content: '' }))];
  return window > 0 ? entries.slice(-2 * window) : [];
}

/**
 * An LLM's messages after its system prompt (RAGFlow's `_sys_prompt_and_msg` over
 * `get_history(window)[:-1]`): the window without its last entry (this turn's query), then the
 * component's prompts — the first one replacing the last history entry when their roles agree.
 */
export function promptsWithHistory(
  window: readonly HistoryEntry[],
  prompts: readonly HistoryEntry[],
): HistoryEntry[] {
  const msg = window.slice(0, -1).map((m) => ({ ...m }));
  const historySize = msg.length;
  for (const p of prompts) {
    if (msg.length === historySize && msg.length > 0 && msg[msg.length - 1].role === p.role) {
      msg[msg.length - 1] = { ...p };
    } else {
      msg.push({ ...p });
    }
  }
  return msg;
}
