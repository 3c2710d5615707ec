import {
  type Action,
  type ChatMessage,
  type RuntimeState,
  type Todo,
  describeUserContext,
} from '@switchyard/contracts';
import { dataCatalogue } from '@switchyard/state';

/** Everything of the turn an output tool writes from (seed 003: the end node hands it all over). */
export interface OutputMaterial {
  prompt: string;
  goal: string;
  style: string;
  scenario: string;
  /** The user's profile as a prompt paragraph ('' without one). */
  about: string;
  /** Earlier turns' messages (the current prompt excluded). */
  history: ChatMessage[];
  /** The turn's context entries marked `usage_type: 'output'` or `important`. */
  context: string[];
  /** The turn's completed todos with their outputs. */
  completed: string[];
  /** The turn's failed todos with their last error, so the answer can say what failed. */
  failed: string[];
  /** Todos still pending or processing when the planner decided to answer. */
  unfinished: string[];
  /** Raw results (or errors) of the turn's tool steps. */
  results: string[];
  /** The thread's outputs kept whole (a preview in their action): what `extract_data_by_path` reads ('' without). */
  catalogue: string;
}

// Nodes whose actions are bookkeeping, not results to answer from.
const NON_EVIDENCE = new Set(['start', 'intake', 'planner', 'reflection', 'memory', 'output']);
// Bounds what one item adds to the prompt: a 1 MB tool result must not blow the context window.
const ITEM_MAX_CHARS = 4000;
const HISTORY_MAX_MESSAGES = 20;

const text = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));
const cut = (s: string): string => (s.length > ITEM_MAX_CHARS ? `${s.slice(0, ITEM_MAX_CHARS - 3)}...` : s);

export function gatherMaterial(state: Readonly<RuntimeState>): OutputMaterial {
  const turn = state.turn;
  const prompt = state.prompts[turn] ?? '';
  const actions = state.action_history[turn] ?? [];
  const todos = state.todos[turn] ?? [];
  return {
    prompt,
    goal: state.task_goals[turn] ?? '',
    style: state.output_style,
    scenario: state.scenario,
    about: describeUserContext(state.user_context),
    history: earlierMessages(state.chat_history, prompt),
    context: contextEntries(actions),
    completed: todos
      .filter((t) => t.status === 'completed')
      .map((t) => cut(`- ${t.task}${t.completion_details ? `: ${text(t.completion_details.output)}` : ''}`)),
    failed: todos.filter((t) => t.status === 'failed').map((t) => cut(`- ${t.task}: ${lastError(t)}`)),
    unfinished: todos
      .filter((t) => t.status === 'pending' || t.status === 'processing')
      .map((t) => cut(`- ${t.task}`)),
    results: actions
      .filter((a) => !NON_EVIDENCE.has(a.node))
      .map((a) => cut(`- ${a.node}: ${a.error ? `error: ${a.error.message}` : text(a.result)}`)),
    catalogue: dataCatalogue(state),
  };
}

/** The material as prompt sections; empty sections are left out. */
export function materialSections(m: OutputMaterial): string {
  const section = (title: string, lines: string[]) => (lines.length ? `${title}:\n${lines.join('\n')}` : '');
  return [
    m.about,
    m.goal ? `Task goal: ${m.goal}` : '',
    m.scenario ? `Scenario: ${m.scenario}` : '',
    m.style ? `Style: ${m.style}` : '',
    section('Context for the answer', m.context),
    section('Completed tasks', m.completed),
    section('Failed tasks (say in the answer what could not be done, and why)', m.failed),
    section('Tasks not finished', m.unfinished),
    m.results.length ? section('Results', m.results) : 'No tool was used.',
    m.catalogue,
  ]
    .filter(Boolean)
    .join('\n\n');
}

function contextEntries(actions: readonly Action[]): string[] {
  const lines: string[] = [];
  for (const a of actions) {
    for (const c of a.context ?? []) {
      if (c.usage_type === 'output' || c.important) {
        const where = c.mapping ? ` (${c.mapping.public ?? c.mapping.path})` : '';
        lines.push(cut(`- [${a.node}, ${c.type}]${where} ${text(c.content)}`));
      }
    }
  }
  return lines;
}

function lastError(todo: Todo): string {
  const last = todo.error_history[todo.error_history.length - 1];
  return last
    ? `${last.error} (tool ${last.tool_used}, attempt ${last.attempt})`
    : 'failed without a recorded error';
}

/** chat_history ends with the current prompt (the start action adds it): drop it, keep the last few. */
function earlierMessages(history: readonly ChatMessage[], prompt: string): ChatMessage[] {
  const last = history[history.length - 1];
  const earlier = last?.role === 'user' && last.content === prompt ? history.slice(0, -1) : [...history];
  return earlier.slice(-HISTORY_MAX_MESSAGES).map((m) => ({ role: m.role, content: cut(m.content) }));
}
