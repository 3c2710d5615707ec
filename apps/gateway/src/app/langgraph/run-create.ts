import type { Breakpoints, ChatMessage } from '@switchyard/contracts';
import { ApiException } from '../http/api.exception';
import type { RunCreate } from './langgraph.schemas';

// What a LangGraph RunCreate body asks of Switchyard: the checks that refuse what cannot be
// honoured (a clear 400 naming the option) and the reading of `input` and `command`.

const invalid = ApiException.invalidField;

const isEmpty = (v: unknown): boolean =>
  v === undefined || v === null || (typeof v === 'object' && Object.keys(v).length === 0);

/** Refuses the options Switchyard does not implement (never silently ignored). */
export function refuseUnsupported(body: RunCreate): void {
  if (body.stream_subgraphs) {
    throw invalid('stream_subgraphs', 'Switchyard agents have no subgraphs; send false or leave it out');
  }
  if (body.multitask_strategy === 'rollback') {
    throw invalid('multitask_strategy', '"rollback" is not supported (use reject, interrupt or enqueue)');
  }
  if (body.on_completion === 'delete') {
    throw invalid('on_completion', '"delete" is for stateless runs (POST /runs…): a thread\'s runs keep it');
  }
  if (body.feedback_keys?.length) {
    throw invalid('feedback_keys', 'feedback is not supported');
  }
  if (body.strict_resume) {
    throw invalid('strict_resume', 'not supported');
  }
  if (!isEmpty(body.config)) {
    throw invalid('config', 'run configuration is not supported: an assistant (agent version) carries it');
  }
  if (!isEmpty(body.context)) {
    throw invalid('context', 'run context is not supported: an assistant (agent version) carries it');
  }
}

/**
 * The checkpoint a request names (`checkpoint_id`, or `checkpoint: {checkpoint_id, checkpoint_ns}`):
 * a run from it forks the thread there. Only the root namespace exists (no subgraphs).
 */
export function checkpointIdOf(body: { checkpoint?: unknown; checkpoint_id?: string }): string | undefined {
  let fromObject: string | undefined;
  if (body.checkpoint !== undefined && body.checkpoint !== null) {
    const c = body.checkpoint as { checkpoint_id?: unknown; checkpoint_ns?: unknown };
    if (typeof c !== 'object' || Array.isArray(c) || typeof c.checkpoint_id !== 'string') {
      throw invalid('checkpoint', 'must be an object {checkpoint_id, checkpoint_ns?}');
    }
    if (c.checkpoint_ns !== undefined && c.checkpoint_ns !== '') {
      throw invalid(
        'checkpoint.checkpoint_ns',
        'only the root namespace ("") exists: agents have no subgraphs',
      );
    }
    fromObject = c.checkpoint_id;
  }
  if (fromObject !== undefined && body.checkpoint_id !== undefined && fromObject !== body.checkpoint_id) {
    throw invalid('checkpoint_id', 'names another checkpoint than checkpoint.checkpoint_id');
  }
  return body.checkpoint_id ?? fromObject;
}

/** `command`: only `{resume: <answer>}` (the answer to the question the thread waits on). */
export function resumeOf(command: unknown): { value: unknown } | null {
  if (command === undefined || command === null) {
    return null;
  }
  if (typeof command !== 'object' || Array.isArray(command)) {
    throw invalid('command', 'must be an object {resume: <answer>}');
  }
  const keys = Object.keys(command);
  const other = keys.filter((k) => k !== 'resume');
  if (other.length) {
    throw invalid(`command.${other[0]}`, 'only command.resume is supported');
  }
  if (!('resume' in command) || (command as { resume: unknown }).resume === undefined) {
    throw invalid('command.resume', 'required');
  }
  return { value: (command as { resume: unknown }).resume };
}

export interface TurnInput {
  prompt: string;
  /** Messages before the prompt (the seed of a new thread's chat history). */
  history: ChatMessage[];
  /** A graph agent's Begin form. */
  inputs?: Record<string, unknown>;
}

const ROLES: Record<string, ChatMessage['role']> = {
  human: 'user',
  user: 'user',
  ai: 'assistant',
  assistant: 'assistant',
  system: 'system',
  developer: 'system',
};

function textOf(content: unknown, field: string): string {
  if (typeof content === 'string') {
    return content;
  }
  if (Array.isArray(content)) {
    return content
      .map((block, i) => {
        if (typeof block === 'string') {
          return block;
        }
        const b = block as { type?: unknown; text?: unknown };
        if (b && b.type === 'text' && typeof b.text === 'string') {
          return b.text;
        }
        throw invalid(`${field}[${i}]`, 'only text content blocks are supported');
      })
      .join('');
  }
  throw invalid(field, 'must be a string or an array of text blocks');
}

/**
 * `input`: `{messages: [...], inputs?: {...}}`. The last message (human) is the turn's prompt;
 * earlier ones seed a new thread's chat history. Any other key is refused by name.
 */
export function turnInputOf(input: unknown): TurnInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalid('input', 'must be an object {messages: [...]} (or send command.resume)');
  }
  const { messages, inputs, ...rest } = input as { messages?: unknown; inputs?: unknown };
  const other = Object.keys(rest);
  if (other.length) {
    throw invalid(
      `input.${other[0]}`,
      'not part of the state a run takes: send input.messages (and input.inputs for a graph agent)',
    );
  }
  const list = typeof messages === 'string' ? [{ type: 'human', content: messages }] : messages;
  if (!Array.isArray(list) || list.length === 0) {
    throw invalid('input.messages', 'must be a non-empty array of messages');
  }
  const read = list.map((m: unknown, i): ChatMessage => {
    const field = `input.messages[${i}]`;
    if (typeof m === 'string') {
      return { role: 'user', content: m };
    }
    const msg = m as { role?: unknown; type?: unknown; content?: unknown };
    const kind = typeof msg?.role === 'string' ? msg.role : msg?.type;
    const role = typeof kind === 'string' ? ROLES[kind] : undefined;
    if (!role) {
      throw invalid(`${field}.role`, 'must be human/user, ai/assistant or system');
    }
    return { role, content: textOf(msg.content, `${field}.content`) };
  });
  const last = read[read.length - 1];
  if (last.role !== 'user' || !last.content) {
    throw invalid(`input.messages[${read.length - 1}]`, 'the last message must be a non-empty human message');
  }
  if (inputs !== undefined && (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs))) {
    throw invalid('input.inputs', 'must be an object (a graph agent\u2019s Begin form)');
  }
  return {
    prompt: last.content,
    history: read.slice(0, -1),
    ...(inputs ? { inputs: inputs as Record<string, unknown> } : {}),
  };
}

/** `interrupt_before` / `interrupt_after` as a run's breakpoints (undefined when neither names a node). */
export function breakpointsOf(
  body: Pick<RunCreate, 'interrupt_before' | 'interrupt_after'>,
): Breakpoints | undefined {
  const named = (v: RunCreate['interrupt_before']) => (v === '*' || (v && v.length > 0) ? v : undefined);
  const before = named(body.interrupt_before);
  const after = named(body.interrupt_after);
  return before || after ? { ...(before ? { before } : {}), ...(after ? { after } : {}) } : undefined;
}

/**
 * A request's breakpoint errors named as LangGraph names them (`breakpoints.before[0]` →
 * `interrupt_before[0]`).
 */
export async function withLangGraphFields<T>(work: Promise<T>): Promise<T> {
  const rename = (s: string) => s.replace(/\bbreakpoints\.(before|after)/g, 'interrupt_$1');
  try {
    return await work;
  } catch (err) {
    if (err instanceof ApiException && Array.isArray(err.details)) {
      const details = (err.details as { field?: string; message: string }[]).map((d) => ({
        ...d,
        ...(d.field ? { field: rename(d.field) } : {}),
      }));
      throw new ApiException(err.code, rename(err.message), details);
    }
    throw err;
  }
}
