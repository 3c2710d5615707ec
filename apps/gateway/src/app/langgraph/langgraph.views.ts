import type { Action, RunStatus, RuntimeState } from '@switchyard/contracts';
import type { RunWaiting } from '@switchyard/persistence';
import type { VersionRecord } from '../threads/threads.repository';
import type { AgentRow, AgentVersionRow, LgRunRow, ThreadRow } from './langgraph.repository';
import type { LgThreadStatus } from './langgraph.schemas';

// How Switchyard's objects look to a LangGraph client (docs/api.md "LangGraph Platform
// compatibility"): pure mappings, no I/O.

const iso = (d: Date | string | null | undefined): string | null => (d ? new Date(d).toISOString() : null);

export type LgRunStatus = 'pending' | 'running' | 'error' | 'success' | 'timeout' | 'interrupted';

/**
 * A run's status as LangGraph names it. A run waiting for a human answer is `success`, as a
 * LangGraph run that reached an interrupt is (its thread is `interrupted`); a cancelled one is
 * `interrupted`.
 */
export function lgRunStatus(status: RunStatus): LgRunStatus {
  switch (status) {
    case 'queued':
      return 'pending';
    case 'running':
      return 'running';
    case 'waiting':
    case 'succeeded':
      return 'success';
    case 'failed':
      return 'error';
    case 'cancelled':
      return 'interrupted';
  }
}

/** A thread's status from its latest run's. */
/** A thread's LangGraph status from its latest run's status (no run, succeeded, cancelled: idle). */
export const LG_THREAD_STATUS_OF: Readonly<Partial<Record<RunStatus, LgThreadStatus>>> = {
  queued: 'busy',
  running: 'busy',
  waiting: 'interrupted',
  failed: 'error',
};

export function lgThreadStatus(last: RunStatus | null, atBreakpoint = false): LgThreadStatus {
  // A run that stopped at a breakpoint succeeded; its thread waits with nodes pending.
  return atBreakpoint ? 'interrupted' : (last && LG_THREAD_STATUS_OF[last]) || 'idle';
}

/** The built-in agent as an assistant: `assistant_id` and `graph_id` are both "default". */
export function builtInAssistant(createdAt: Date) {
  return {
    assistant_id: 'default',
    graph_id: 'default',
    config: {},
    context: {},
    metadata: {},
    version: 1,
    name: 'default',
    description: 'The built-in Switchyard agent',
    created_at: iso(createdAt),
    updated_at: iso(createdAt),
  };
}

/**
 * An agent as an assistant: `graph_id` the agent it was made from (its own name for an agent
 * made under /v1/agents), `version` the one its runs use, and the fields it was given.
 */
export function assistantView(a: AgentRow) {
  return {
    assistant_id: a.id,
    graph_id: a.graph_id,
    config: a.assistant?.config ?? {},
    context: a.assistant?.context ?? {},
    metadata: a.metadata ?? {},
    version: a.version === null ? 1 : Number(a.version),
    name: a.name,
    description: a.description,
    created_at: iso(a.created_at),
    updated_at: iso(a.updated_at),
  };
}

/** One version of an assistant: the fields that version was given (else the agent's). */
export function assistantVersionView(a: AgentRow, v: AgentVersionRow) {
  const f = v.assistant;
  return {
    assistant_id: a.id,
    graph_id: f?.graph_name ?? a.graph_id,
    config: f?.config ?? {},
    context: f?.context ?? {},
    metadata: f?.metadata ?? a.metadata ?? {},
    version: v.version,
    name: f?.name ?? v.config.name,
    description: f ? f.description : a.description,
    created_at: iso(v.created_at),
    updated_at: iso(v.created_at),
  };
}

/** A LangChain message dict (what LangGraph serialises a `BaseMessage` to). */
export interface LgMessage {
  type: 'human' | 'ai' | 'system';
  content: string;
  id: string;
  name: null;
  additional_kwargs: Record<string, never>;
  response_metadata: Record<string, never>;
  tool_calls?: [];
  invalid_tool_calls?: [];
}

const TYPE_OF_ROLE = { user: 'human', assistant: 'ai', system: 'system' } as const;

const lgMessage = (id: string, type: LgMessage['type'], content: string): LgMessage => ({
  type,
  content,
  id,
  name: null,
  additional_kwargs: {},
  response_metadata: {},
  ...(type === 'ai' ? { tool_calls: [] as [], invalid_tool_calls: [] as [] } : {}),
});

/**
 * The thread's prompts and answers (RuntimeState.chat_history) as LangChain message dicts, ids
 * `<thread_id>:<index>`. A graph agent's answers are not in chat_history (its canvas keeps its
 * own history): each turn's answer — the `answer` its branch ended with — follows the turn's
 * prompt (where its `start` action says it is), id `<thread_id>:turn-<n>:answer`.
 */
export function messagesOf(
  state: Pick<RuntimeState, 'thread_id' | 'chat_history' | 'prompts' | 'action_history' | 'graph'>,
): LgMessage[] {
  const answersAfter = state.graph === undefined ? new Map<number, [number, string]>() : graphAnswers(state);
  const out: LgMessage[] = [];
  for (const [i, m] of state.chat_history.entries()) {
    out.push(lgMessage(`${state.thread_id}:${i}`, TYPE_OF_ROLE[m.role], m.content));
    const answer = answersAfter.get(i);
    if (answer) {
      out.push(lgMessage(answerMessageId(state.thread_id, answer[0]), 'ai', answer[1]));
    }
  }
  return out;
}

/** The id of a graph agent's answer in turn `turn` (not an index of chat_history). */
export const answerMessageId = (threadId: string, turn: number): string => `${threadId}:turn-${turn}:answer`;

/**
 * Each answered turn of a graph agent, by the chat_history index of its prompt: the `start`
 * action's `chat_index`, or — for turns opened before it was recorded — the next user message
 * with the turn's prompt.
 */
function graphAnswers(
  state: Pick<RuntimeState, 'chat_history' | 'prompts' | 'action_history'>,
): Map<number, [number, string]> {
  const out = new Map<number, [number, string]>();
  let from = 0;
  for (const [turn, actions] of state.action_history.entries()) {
    const start = actions.find((a) => a.node === 'start')?.result as { chat_index?: unknown } | undefined;
    let at = typeof start?.chat_index === 'number' ? start.chat_index : -1;
    if (at < 0) {
      at = state.chat_history.findIndex(
        (m, i) => i >= from && m.role === 'user' && m.content === state.prompts[turn],
      );
    }
    const answer = turnAnswer(actions);
    if (at >= 0 && at < state.chat_history.length) {
      from = at + 1;
      if (answer !== undefined) {
        out.set(at, [turn, answer]);
      }
    }
  }
  return out;
}

/** A graph agent's answer in a turn: the last `answer` an action's result carries. */
function turnAnswer(actions: readonly Pick<Action, 'result'>[]): string | undefined {
  for (let i = actions.length - 1; i >= 0; i--) {
    const answer = (actions[i].result as { answer?: unknown } | null)?.answer;
    if (typeof answer === 'string') {
      return answer;
    }
  }
  return undefined;
}

/**
 * The `values` of a thread: a projection of RuntimeState. `messages` are the prompts and answers;
 * the rest are RuntimeState's fields of the latest turn under their own names.
 */
export function valuesOf(state: RuntimeState) {
  return {
    messages: messagesOf(state),
    task_goals: state.task_goals,
    todos: state.todos[state.todos.length - 1] ?? [],
    output_structure: state.output_structure,
    scenario: state.scenario,
    output_style: state.output_style,
    turn: state.turn,
    ...(state.graph ? { graph: state.graph } : {}),
  };
}

/** A human question as a LangGraph interrupt; `value` is what the resume must answer. */
export function interruptOf(waiting: Pick<RunWaiting, 'task_id' | 'question' | 'input_schema'>) {
  return {
    id: waiting.task_id,
    value: { question: waiting.question, input_schema: waiting.input_schema },
  };
}

export function checkpointOf(threadId: string, version: number) {
  return { thread_id: threadId, checkpoint_ns: '', checkpoint_id: String(version), checkpoint_map: null };
}

/**
 * `ThreadState`: the values at a version, what runs next from it (`next`, `tasks`: the nodes its
 * action routed to, or the question the thread waits on) and the checkpoint ids.
 */
export function threadStateView(
  threadId: string,
  state: RuntimeState | null,
  checkpoint: VersionRecord | null,
  waiting: RunWaiting | null,
) {
  const version = state?.version ?? 0;
  const next = waiting ? [waiting.node] : [...new Set(checkpoint?.next ?? [])];
  return {
    values: state ? valuesOf(state) : {},
    next,
    tasks: waiting
      ? [
          {
            id: waiting.task_id,
            name: waiting.node,
            path: [],
            error: null,
            interrupts: [interruptOf(waiting)],
            checkpoint: null,
            state: null,
            result: null,
          },
        ]
      : next.map((name) => ({
          // No task exists yet for a step not dispatched: named by checkpoint and node.
          id: `${version}:${name}`,
          name,
          path: [],
          error: null,
          interrupts: [],
          checkpoint: null,
          state: null,
          result: null,
        })),
    checkpoint: version > 0 ? checkpointOf(threadId, version) : null,
    metadata: checkpoint
      ? {
          // A branch's first checkpoint is LangGraph's `fork` (the state written, not a node's step).
          source: checkpoint.from_version !== null ? 'fork' : 'loop',
          step: version,
          run_id: checkpoint.run_id,
          writes: checkpoint.node ? { [checkpoint.node]: null } : null,
        }
      : {},
    created_at: iso(checkpoint?.created_at),
    // A branch hangs off its fork point; every other version off the one before it.
    parent_checkpoint:
      checkpoint && checkpoint.from_version !== null
        ? checkpointOf(threadId, checkpoint.from_version)
        : version > 1 && !checkpoint?.compacted
          ? checkpointOf(threadId, version - 1)
          : null,
    interrupts: waiting ? [interruptOf(waiting)] : [],
  };
}

export function threadView(t: ThreadRow, state: RuntimeState | null) {
  const status = lgThreadStatus(t.last_status, t.at_breakpoint ?? false);
  return {
    thread_id: t.id,
    created_at: iso(t.created_at),
    updated_at: iso(t.updated_at),
    state_updated_at: iso(t.updated_at),
    metadata: t.metadata ?? {},
    status,
    values: state ? valuesOf(state) : {},
    interrupts:
      status === 'interrupted' && t.waiting ? { [t.waiting.task_id]: [interruptOf(t.waiting)] } : {},
    config: {},
    error: status === 'error' ? (t.error ?? null) : null,
  };
}

/** A run; `multitask_strategy` is known only to the request that created it (null otherwise). */
export function runView(r: LgRunRow, assistantId: string, multitask: string | null) {
  return {
    run_id: r.id,
    thread_id: r.thread_id,
    assistant_id: assistantId,
    created_at: iso(r.created_at),
    updated_at: iso(r.finished_at ?? r.started_at ?? r.created_at),
    status: lgRunStatus(r.status),
    metadata: r.metadata ?? {},
    multitask_strategy: multitask,
    kwargs: {},
  };
}

/** `select`: only the named fields. */
export function pick<T extends object>(o: T, keys: readonly string[]): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k))) as Partial<T>;
}

/**
 * Whether `value` contains `part` as Postgres' jsonb `@>` decides (LangGraph's values filter):
 * objects by key, recursively; an array contains each element of `part`'s somewhere; scalars equal.
 */
export function containsJson(value: unknown, part: unknown): boolean {
  if (Array.isArray(part)) {
    return Array.isArray(value) && part.every((p) => value.some((v) => containsJson(v, p)));
  }
  if (part !== null && typeof part === 'object') {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return false;
    }
    const v = value as Record<string, unknown>;
    return Object.entries(part).every(([k, p]) => k in v && containsJson(v[k], p));
  }
  return value === part;
}
