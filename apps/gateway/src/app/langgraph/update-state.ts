import type { RuntimeState, StateEdit } from '@switchyard/contracts';
import { ApiException } from '../http/api.exception';
import { turnInputOf } from './run-create';

const invalid = ApiException.invalidField;

// `values` keys an update may write, as the projection (valuesOf) shows them.
const PLAIN = ['task_goals', 'output_structure', 'scenario', 'output_style', 'graph'] as const;

/**
 * `POST /threads/{id}/state {values}` as edits of the RuntimeState at the checkpoint: `messages`
 * go through LangGraph's add-messages rule (a message whose `id` is one of the thread's replaces
 * it, any other is appended), `todos` replaces the latest plan, the plain fields are replaced;
 * `turn` and unknown keys are refused by name.
 */
export function editsOfValues(values: unknown, state: RuntimeState): StateEdit[] {
  if (values === undefined || values === null) {
    return [];
  }
  if (typeof values !== 'object' || Array.isArray(values)) {
    throw invalid('values', 'must be an object of state values');
  }
  const edits: StateEdit[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (key === 'messages') {
      edits.push(...messageEdits(value, state));
    } else if (key === 'todos') {
      edits.push({ op: 'replace', path: `/todos/${state.turn}`, value });
    } else if ((PLAIN as readonly string[]).includes(key)) {
      edits.push({
        op: state[key as keyof RuntimeState] === undefined ? 'add' : 'replace',
        path: `/${key}`,
        value,
      });
    } else {
      throw invalid(
        `values.${key}`,
        key === 'turn' ? 'read-only' : `not a state value (writable: messages, todos, ${PLAIN.join(', ')})`,
      );
    }
  }
  return edits;
}

function messageEdits(value: unknown, state: RuntimeState): StateEdit[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((m, i): StateEdit => {
    const id = (m as { id?: unknown })?.id;
    if ((m as { type?: unknown })?.type === 'remove') {
      throw invalid(`values.messages[${i}]`, 'removing messages is not supported');
    }
    // The role and text read as a run's input reads them (the last message must be a human one there).
    let msg;
    try {
      [msg] = turnInputOf({ messages: [m, 'x'] }).history;
    } catch (err) {
      const detail =
        err instanceof ApiException
          ? (err.details as { message?: string }[] | undefined)?.[0]?.message
          : undefined;
      throw invalid(`values.messages[${i}]`, detail ?? 'not a message');
    }
    if (typeof id === 'string' && /^.+:turn-\d+:answer$/.test(id)) {
      throw invalid(
        `values.messages[${i}]`,
        "a graph agent's answer is what its canvas said: it cannot be replaced (send a message without its id to add one)",
      );
    }
    const at = typeof id === 'string' ? indexOfId(id, state) : -1;
    return at >= 0
      ? { op: 'replace', path: `/chat_history/${at}`, value: msg }
      : { op: 'add', path: '/chat_history/-', value: msg };
  });
}

/** The index a message id of this thread (`<thread_id>:<index>`, see messagesOf) names, else -1. */
function indexOfId(id: string, state: RuntimeState): number {
  const prefix = `${state.thread_id}:`;
  if (!id.startsWith(prefix)) {
    return -1;
  }
  const i = Number(id.slice(prefix.length));
  return Number.isInteger(i) && i >= 0 && i < state.chat_history.length ? i : -1;
}
