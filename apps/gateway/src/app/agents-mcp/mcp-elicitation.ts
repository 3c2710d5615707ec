import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * MCP elicitation for a stateless server. The client declares `capabilities.elicitation` only in
 * `initialize`, so the session id the server answers it with carries that (`sy1.e.<random>`): no
 * replica keeps anything, and every later request tells whether its client can be asked. A
 * question is asked with an `elicitation/create` request whose id names the run and the task
 * that waits (`sy-elicit:<run>:<task>[:w]`); the client's answer comes back as a POST of its own,
 * to any replica, which resumes that run — or, declined, leaves a note the asking call reads.
 */
import { randomUUID } from 'node:crypto';

const SESSION_PREFIX = 'sy1';
const ELICIT_PREFIX = 'sy-elicit:';

/** The session id an `initialize` is answered with, recording whether the client can be asked. */
export function sessionIdFor(capabilities: unknown): string {
  const elicitation =
    capabilities !== null && typeof capabilities === 'object' && 'elicitation' in capabilities;
  return `${SESSION_PREFIX}.${elicitation ? 'e' : 'n'}.${randomUUID()}`;
}

/** Whether the client of this session said it answers elicitations. */
export function canElicit(sessionId: string | undefined): boolean {
  return sessionId?.startsWith(`${SESSION_PREFIX}.e.`) ?? false;
}

/** An `elicitation/create` request's schema for a question's: a flat object of primitive fields. */
export interface Elicitable {
  /** A string question is asked as one field `answer`, unwrapped again from the answer. */
  wrapped: boolean;
  requestedSchema: {
    type: 'object';
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
  };
}

const PRIMITIVE = new Set(['string', 'number', 'integer', 'boolean']);
const KEPT = [
  'type',
  'title',
  'description',
  'enum',
  'enumNames',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'format',
  'default',
];

/** The question's input schema as MCP can ask it (null: it cannot — nested or untyped fields). */
export function elicitable(inputSchema: unknown, question: string): Elicitable | null {
  const schema = (inputSchema ?? {}) as { type?: unknown; properties?: unknown; required?: unknown };
  if (schema.type === undefined || schema.type === 'string') {
    return {
      wrapped: true,
      requestedSchema: {
        type: 'object',
        properties: { answer: { type: 'string', description: question } },
        required: ['answer'],
      },
    };
  }
  if (schema.type !== 'object' || !schema.properties || typeof schema.properties !== 'object') {
    return null;
  }
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [name, raw] of Object.entries(schema.properties as Record<string, Record<string, unknown>>)) {
    // A field without a type (a UserFillUp's line or paragraph) is text.
    const type = raw?.['type'] ?? 'string';
    if (!raw || !PRIMITIVE.has(type as string)) {
      return null;
    }
    properties[name] = { ...Object.fromEntries(KEPT.filter((k) => k in raw).map((k) => [k, raw[k]])), type };
  }
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : undefined;
  return {
    wrapped: false,
    requestedSchema: { type: 'object', properties, ...(required ? { required } : {}) },
  };
}

/** The request asking the question of `task` of `run`. */
export function elicitationRequest(
  run: string,
  task: string,
  question: string,
  ask: Elicitable,
): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id: `${ELICIT_PREFIX}${run}:${task}${ask.wrapped ? ':w' : ''}`,
    method: 'elicitation/create',
    params: { mode: 'form', message: question, requestedSchema: ask.requestedSchema },
  };
}

/** A client's answer to one of our questions, read from a POSTed JSON-RPC response. */
export interface ElicitationAnswer {
  id: string;
  run: string;
  task: string;
  /** `accept` with the value the run takes; `decline`/`cancel`; `error` when the client could not ask. */
  action: 'accept' | 'decline' | 'cancel' | 'error';
  value?: unknown;
}

/** The answers in a POST body, or null when it is not (only) answers to our questions. */
export function elicitationAnswers(body: unknown): ElicitationAnswer[] | null {
  const messages = Array.isArray(body) ? body : [body];
  const out: ElicitationAnswer[] = [];
  for (const m of messages) {
    const msg = m as { id?: unknown; method?: unknown; result?: unknown; error?: unknown } | null;
    if (!msg || typeof msg.id !== 'string' || !msg.id.startsWith(ELICIT_PREFIX) || msg.method !== undefined) {
      return null;
    }
    const [run, task, w] = msg.id.slice(ELICIT_PREFIX.length).split(':');
    const result = msg.result as { action?: unknown; content?: Record<string, unknown> } | undefined;
    const action = msg.error !== undefined || !result ? 'error' : result.action;
    if (action === 'accept') {
      const content = result?.content ?? {};
      out.push({ id: msg.id, run, task, action, value: w === 'w' ? content['answer'] : content });
    } else {
      out.push({
        id: msg.id,
        run,
        task,
        action: action === 'decline' || action === 'cancel' ? action : 'error',
      });
    }
  }
  return out.length ? out : null;
}

/** The Redis key where a declined (or failed) question leaves its note for the asking call. */
export const declinedKey = (run: string, task: string) => `mcp:elicit:${run}:${task}`;
